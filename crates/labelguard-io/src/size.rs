//! The byte size a header claims for a tensor, computed without overflow and checked against
//! the limit before anything is allocated or read.

use crate::Limits;
use labelguard_core::{tensor::numel_u128, DType};

/// `shape x dtype.size()` in bytes, or a message (`shape [..] (N bytes), over the size limit of L
/// bytes`) when it is over `limits.max_tensor_bytes` or does not even fit in a `u128`.
pub(crate) fn tensor_bytes(shape: &[usize], dtype: DType, limits: &Limits) -> Result<u128, String> {
    let needed = numel_u128(shape).and_then(|n| n.checked_mul(dtype.size() as u128));
    match needed {
        Some(n) if n <= limits.max_tensor_bytes as u128 => Ok(n),
        _ => Err(format!(
            "shape {shape:?} ({} bytes), over the size limit of {} bytes",
            needed.map_or("more than 2^128".to_string(), |n| n.to_string()),
            limits.max_tensor_bytes
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_that_overflow_are_over_the_limit_not_empty() {
        let l = Limits::default();
        let e = tensor_bytes(&[1 << 32; 4], DType::U8, &l).unwrap_err();
        assert!(
            e.contains("more than 2^128") && e.contains("over the size limit"),
            "{e}"
        );
        let e = tensor_bytes(&[1 << 32; 3], DType::I64, &l).unwrap_err();
        assert!(e.contains("(633825300114114700748351602688 bytes)"), "{e}");
        assert_eq!(tensor_bytes(&[0, 1 << 40, 1 << 40], DType::I64, &l), Ok(0));
        assert_eq!(tensor_bytes(&[2, 3], DType::I64, &l), Ok(48));
    }
}
