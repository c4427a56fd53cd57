//! A bounds check of one Thrift compact-protocol struct (a Parquet footer or page header)
//! before the `parquet` crate reads it.
//!
//! Why: the crate skips fields it does not know, and its skipper trusts the element count of a
//! skipped list. A list of 2^31 - 1 booleans costs it no bytes per element, so a 1 KB file made
//! it loop 2^31 times (issue 8: 20 s and 84 s per file). This walk visits every value and
//! makes each one, booleans in lists included, take at least one byte of the buffer, so that
//! a struct that passes has no count larger than its own length: whatever the crate then does
//! with it is bounded by the bytes it was given.
//!
//! Encoding (Thrift compact protocol spec, apache/thrift `doc/specs/thrift-compact-protocol.md`):
//! a field header byte holds the field-id delta in its high nibble (0: a zigzag varint id
//! follows) and the type in its low nibble; type 0 ends a struct. Types: 1/2 boolean (no data
//! in a field, one byte in a list), 3 byte, 4/5/6 i16/i32/i64 as varints, 7 double (8 bytes),
//! 8 binary (varint length, bytes), 9/10 list/set (a byte: size in the high nibble, 15 meaning
//! a varint size follows; element type in the low nibble), 11 map (varint size, then a byte of
//! key and value types when the size is not 0), 12 struct, 13 uuid (16 bytes).

/// Nesting deeper than this is refused (the `parquet` crate's own skip limit is 64).
const MAX_DEPTH: u32 = 64;

/// What the walk learnt about the struct: its length in bytes and its top-level integer
/// fields (id, value), for the caller to check sizes the struct claims.
#[derive(Debug, Default, PartialEq)]
pub struct Walked {
    pub len: usize,
    pub ints: Vec<(i16, i64)>,
}

/// Walks the struct at the start of `buf`; an error names what is wrong and where.
pub fn check_struct(buf: &[u8]) -> Result<Walked, String> {
    let mut w = Walker { buf, pos: 0 };
    let mut ints = Vec::new();
    w.fields(0, Some(&mut ints))?;
    Ok(Walked { len: w.pos, ints })
}

struct Walker<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Walker<'_> {
    fn byte(&mut self) -> Result<u8, String> {
        let b = *self
            .buf
            .get(self.pos)
            .ok_or_else(|| format!("Thrift data ends at byte {}", self.pos))?;
        self.pos += 1;
        Ok(b)
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..70).step_by(7) {
            let b = self.byte()?;
            if shift == 63 && b > 1 {
                break;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(format!("a varint longer than 64 bits at byte {}", self.pos))
    }

    fn zigzag(&mut self) -> Result<i64, String> {
        let v = self.varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn skip(&mut self, n: u64) -> Result<(), String> {
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            return Err(format!(
                "a value of {n} bytes at byte {} where {left} remain",
                self.pos
            ));
        }
        self.pos += n as usize;
        Ok(())
    }

    /// A count of elements that each take at least one byte: no more than the bytes left.
    fn count(&mut self, n: u64) -> Result<u64, String> {
        let left = (self.buf.len() - self.pos) as u64;
        if n > left {
            return Err(format!(
                "a list of {n} elements at byte {} where {left} bytes remain",
                self.pos
            ));
        }
        Ok(n)
    }

    fn fields(&mut self, depth: u32, mut ints: Option<&mut Vec<(i16, i64)>>) -> Result<(), String> {
        if depth >= MAX_DEPTH {
            return Err(format!("Thrift structs nested deeper than {MAX_DEPTH}"));
        }
        let mut id: i16 = 0;
        loop {
            let header = self.byte()?;
            let ty = header & 0x0f;
            if ty == 0 {
                return Ok(());
            }
            let delta = header >> 4;
            id = if delta == 0 {
                self.zigzag()? as i16
            } else {
                id.wrapping_add(i16::from(delta))
            };
            if matches!(ty, 1 | 2) {
                continue; // a boolean field carries its value in the type
            }
            if matches!(ty, 4..=6) {
                let v = self.zigzag()?;
                if let Some(ints) = ints.as_deref_mut() {
                    ints.push((id, v));
                }
                continue;
            }
            self.value(ty, depth)?;
        }
    }

    fn value(&mut self, ty: u8, depth: u32) -> Result<(), String> {
        match ty {
            1..=3 => self.skip(1),
            4..=6 => self.varint().map(|_| ()),
            7 => self.skip(8),
            8 => {
                let n = self.varint()?;
                self.skip(n)
            }
            9 | 10 => {
                let header = self.byte()?;
                let size = match header >> 4 {
                    15 => self.varint()?,
                    n => u64::from(n),
                };
                let ty = header & 0x0f;
                for _ in 0..self.count(size)? {
                    self.value(ty, depth + 1)?;
                }
                Ok(())
            }
            11 => {
                let size = self.varint()?;
                if size > 0 {
                    let kinds = self.byte()?;
                    for _ in 0..self.count(size)? {
                        self.value(kinds >> 4, depth + 1)?;
                        self.value(kinds & 0x0f, depth + 1)?;
                    }
                }
                Ok(())
            }
            12 => self.fields(depth + 1, None),
            13 => self.skip(16),
            _ => Err(format!("unknown Thrift type {ty} at byte {}", self.pos)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_struct_is_walked_to_its_end_with_its_integer_fields() {
        // i32 field 1 = -2 (zigzag 3), i32 field 2 = 300 (zigzag 600 = 0xD8 0x04), a binary
        // field 4 (delta 2) of 2 bytes, a struct field 5 with a bool field, a list<i32> of 2
        // as field 6, stop; then bytes that are not part of it.
        let b = [
            0x15, 0x03, 0x15, 0xD8, 0x04, 0x28, 0x02, b'h', b'i', 0x1C, 0x11, 0x00, 0x19, 0x25,
            0x02, 0x04, 0x00, 0xAA,
        ];
        let w = check_struct(&b).unwrap();
        assert_eq!(w.len, b.len() - 1);
        assert_eq!(w.ints, vec![(1, -2), (2, 300)]);
    }

    #[test]
    fn counts_beyond_the_bytes_are_refused() {
        // A skipped list of 2^31 - 1 booleans: once a 2^31-iteration loop in the crate.
        let bools = [0xF9, 0xF1, 0xFF, 0xFF, 0xFF, 0xFF, 0x07, 0x00];
        let e = check_struct(&bools).unwrap_err();
        assert!(e.contains("2147483647 elements"), "{e}");
        // Booleans in a list take a byte each: 3 of them need 3 bytes.
        assert!(check_struct(&[0x19, 0x31, 1, 1, 0x00]).is_err());
        assert_eq!(check_struct(&[0x19, 0x31, 1, 1, 1, 0x00]).unwrap().len, 6);
        // A binary longer than what is left, a map of 2^40 entries, a struct never closed.
        assert!(check_struct(&[0x18, 0x7F, 0x00]).is_err());
        assert!(check_struct(&[0x1B, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20, 0x55, 0x00]).is_err());
        assert!(check_struct(&[0x15, 0x02]).is_err());
        assert!(check_struct(&[]).is_err());
        // Deep nesting stops at the limit instead of the stack.
        let deep: Vec<u8> = std::iter::repeat_n(0x1C, 10_000).collect();
        assert!(check_struct(&deep).unwrap_err().contains("deeper"));
        // A varint of 11 bytes, an unknown type.
        assert!(check_struct(&[
            0x16, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01
        ])
        .is_err());
        assert!(check_struct(&[0x1E, 0x00])
            .unwrap_err()
            .contains("unknown Thrift type"));
    }
}
