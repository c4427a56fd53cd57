//! The colour lookup of RGB colour masks, shared by the scan (which reports a mask's colours)
//! and `labelguard fix` (which rewrites them as class ids).

use std::collections::HashMap;

/// Colour -> class id: the palette's colours (index = class id), then the void colours.
#[derive(Clone, Debug)]
pub struct ColourMap {
    ids: HashMap<[u8; 3], i64>,
}

impl ColourMap {
    /// The first palette entry of a colour wins; void colours map to `void_id` unless the
    /// palette already names them.
    pub fn new(palette: &[[u8; 3]], void_colours: &[[u8; 3]], void_id: i64) -> ColourMap {
        let mut ids = HashMap::new();
        for (i, c) in palette.iter().enumerate() {
            ids.entry(*c).or_insert(i as i64);
        }
        for c in void_colours {
            ids.entry(*c).or_insert(void_id);
        }
        ColourMap { ids }
    }

    /// The id of one colour.
    pub fn get(&self, c: &[u8; 3]) -> Option<i64> {
        self.ids.get(c).copied()
    }

    /// The smallest and the largest id of the map (`None` when it is empty).
    pub fn id_range(&self) -> Option<(i64, i64)> {
        let lo = self.ids.values().min()?;
        let hi = self.ids.values().max()?;
        Some((*lo, *hi))
    }

    /// A lookup for a run of pixels: neighbouring pixels mostly share a colour, so the last
    /// answer is kept and the hash map is asked only when the colour changes.
    pub fn lookup(&self) -> Lookup<'_> {
        Lookup {
            map: self,
            last: None,
        }
    }
}

/// See [`ColourMap::lookup`].
pub struct Lookup<'a> {
    map: &'a ColourMap,
    last: Option<([u8; 3], Option<i64>)>,
}

impl Lookup<'_> {
    pub fn id(&mut self, c: [u8; 3]) -> Option<i64> {
        match self.last {
            Some((lc, id)) if lc == c => id,
            _ => {
                let id = self.map.get(&c);
                self.last = Some((c, id));
                id
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn palette_first_then_void_and_the_cache_follows_changes() {
        let m = ColourMap::new(
            &[[0, 0, 0], [9, 9, 9], [0, 0, 0]],
            &[[9, 9, 9], [1, 2, 3]],
            255,
        );
        assert_eq!(m.get(&[0, 0, 0]), Some(0));
        assert_eq!(m.get(&[9, 9, 9]), Some(1));
        assert_eq!(m.get(&[1, 2, 3]), Some(255));
        let mut l = m.lookup();
        let seq = [[9, 9, 9], [9, 9, 9], [1, 2, 3], [7, 7, 7], [0, 0, 0]];
        let got: Vec<_> = seq.iter().map(|c| l.id(*c)).collect();
        assert_eq!(got, [Some(1), Some(1), Some(255), None, Some(0)]);
    }
}
