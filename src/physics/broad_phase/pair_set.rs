//! A set of unordered `u32` pairs with deterministic iteration order, and the deterministic
//! hasher it uses.
//!
//! Runs must be bit-for-bit reproducible, so nothing may depend on std's `RandomState` (seeded
//! per process). The set keeps its pairs in a `Vec` (the iteration order) and a hash map from the
//! packed pair to its position; removal swaps the last pair into the hole, so the order depends
//! only on the sequence of inserts and removes.

use super::ordered_pair;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A fast, deterministic (unseeded) hasher for integer keys, built on the SplitMix64 output
/// function (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014).
/// Not resistant to adversarial keys, which is fine for collider and contact indices.
#[derive(Clone, Copy, Debug, Default)]
pub struct SplitMixHasher {
    state: u64,
}

/// `BuildHasher` for [`SplitMixHasher`]: use it as the `S` of a `HashMap` to make it
/// deterministic across runs and processes.
pub type DeterministicBuildHasher = BuildHasherDefault<SplitMixHasher>;

impl SplitMixHasher {
    /// SplitMix64's finaliser: add the golden-ratio increment, then two xor-shift-multiply
    /// rounds. Every input bit affects every output bit, so packed small integers spread over the
    /// whole table.
    #[inline]
    fn mix(value: u64) -> u64 {
        let mut z = value.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

impl Hasher for SplitMixHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.state
    }

    /// Generic path for non-integer keys: folds the bytes in 8-byte little-endian words.
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }

    #[inline]
    fn write_u32(&mut self, value: u32) {
        self.write_u64(u64::from(value));
    }

    #[inline]
    fn write_u64(&mut self, value: u64) {
        self.state = Self::mix(self.state ^ value);
    }
}

/// Packs an ordered pair into one map key: `a` in the high half, `b` in the low half.
#[inline]
fn pair_key(pair: (u32, u32)) -> u64 {
    (u64::from(pair.0) << 32) | u64::from(pair.1)
}

/// A set of unordered pairs of `u32` (`(a, b)` and `(b, a)` are the same pair, stored as
/// `(min, max)`), with O(1) insert, remove and lookup, and an iteration order that depends only
/// on the sequence of operations: pairs appear in insertion order, except that removing a pair
/// moves the last pair into its place (swap-remove).
#[derive(Clone, Debug, Default)]
pub struct PairSet {
    /// The pairs, each as `(min, max)`, in iteration order.
    pairs: Vec<(u32, u32)>,
    /// Packed pair → its position in `pairs`.
    index: HashMap<u64, u32, DeterministicBuildHasher>,
}

impl PairSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty set with room for `capacity` pairs before reallocating.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            pairs: Vec::with_capacity(capacity),
            index: HashMap::with_capacity_and_hasher(capacity, DeterministicBuildHasher::default()),
        }
    }

    /// Number of pairs.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// True when the set holds no pair.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// Adds the pair `{a, b}`; returns false if it was already present (the set is unchanged).
    pub fn insert(&mut self, a: u32, b: u32) -> bool {
        let pair = ordered_pair(a, b);
        let position = self.pairs.len() as u32;
        match self.index.entry(pair_key(pair)) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(position);
                self.pairs.push(pair);
                true
            }
        }
    }

    /// Removes the pair `{a, b}`; returns false if it was absent. The last pair takes its place.
    pub fn remove(&mut self, a: u32, b: u32) -> bool {
        match self.index.remove(&pair_key(ordered_pair(a, b))) {
            Some(position) => {
                self.swap_remove_at(position as usize);
                true
            }
            None => false,
        }
    }

    /// True when the pair `{a, b}` is in the set.
    pub fn contains(&self, a: u32, b: u32) -> bool {
        self.index.contains_key(&pair_key(ordered_pair(a, b)))
    }

    /// The pairs as `(min, max)`, in iteration order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.pairs.iter().copied()
    }

    /// The pairs as a slice, in iteration order.
    pub fn as_slice(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// Keeps only the pairs for which `keep(min, max)` is true. Pairs are visited in iteration
    /// order and removed by swap-remove, so the result is as deterministic as the set itself.
    pub fn retain(&mut self, mut keep: impl FnMut(u32, u32) -> bool) {
        let mut position = 0;
        while position < self.pairs.len() {
            let (a, b) = self.pairs[position];
            if keep(a, b) {
                position += 1;
            } else {
                // The pair swapped into `position` has not been visited yet: test it next.
                self.index.remove(&pair_key((a, b)));
                self.swap_remove_at(position);
            }
        }
    }

    /// Removes every pair (keeping the allocated memory).
    pub fn clear(&mut self) {
        self.pairs.clear();
        self.index.clear();
    }

    /// Checks that the vector and the map describe the same pairs: every stored pair is ordered,
    /// and the map sends each one to its own position (hence no duplicates).
    pub fn validate(&self) -> Result<(), String> {
        if self.index.len() != self.pairs.len() {
            return Err(format!(
                "pair set: {} pairs but {} index entries",
                self.pairs.len(),
                self.index.len()
            ));
        }
        for (position, &(a, b)) in self.pairs.iter().enumerate() {
            if a > b {
                return Err(format!("pair set: pair ({a}, {b}) is not ordered"));
            }
            match self.index.get(&pair_key((a, b))) {
                Some(&p) if p as usize == position => {}
                other => {
                    return Err(format!(
                        "pair set: pair ({a}, {b}) at {position} is indexed at {other:?}"
                    ))
                }
            }
        }
        Ok(())
    }

    /// Removes the pair at `position` (already gone from `index`) by moving the last pair into
    /// its place and updating that pair's index entry.
    fn swap_remove_at(&mut self, position: usize) {
        self.pairs.swap_remove(position);
        if let Some(&moved) = self.pairs.get(position) {
            self.index.insert(pair_key(moved), position as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    #[test]
    fn insert_contains_remove() {
        let mut set = PairSet::new();
        assert!(set.insert(3, 1));
        assert!(!set.insert(1, 3), "(1, 3) and (3, 1) are the same pair");
        assert!(set.insert(2, 5));
        assert!(set.contains(1, 3) && set.contains(5, 2));
        assert_eq!(set.len(), 2);
        assert!(set.remove(3, 1));
        assert!(!set.remove(3, 1));
        assert!(!set.contains(1, 3));
        assert_eq!(set.as_slice(), &[(2, 5)]);
        set.validate().unwrap();
    }

    #[test]
    fn removal_swaps_last_pair_into_hole() {
        let mut set = PairSet::new();
        for i in 0..5 {
            set.insert(i, i + 10);
        }
        set.remove(1, 11);
        let order: Vec<_> = set.iter().collect();
        assert_eq!(order, vec![(0, 10), (4, 14), (2, 12), (3, 13)]);
        set.validate().unwrap();
    }

    #[test]
    fn retain_visits_swapped_pairs() {
        let mut set = PairSet::new();
        for i in 0..10 {
            set.insert(i, 100);
        }
        set.retain(|a, _| a % 3 == 0);
        let mut kept: Vec<_> = set.iter().map(|(a, _)| a).collect();
        kept.sort_unstable();
        assert_eq!(kept, vec![0, 3, 6, 9]);
        set.validate().unwrap();
    }

    #[test]
    fn hasher_is_deterministic_and_spreads_bits() {
        let build = DeterministicBuildHasher::default();
        let h1 = build.hash_one(pair_key((1, 2)));
        let h2 = build.hash_one(pair_key((1, 2)));
        let h3 = build.hash_one(pair_key((1, 3)));
        assert_eq!(h1, h2);
        // Neighbouring keys differ in about half of the 64 output bits.
        assert!((h1 ^ h3).count_ones() > 16);
    }

    #[test]
    fn same_operations_give_same_order() {
        let run = || {
            let mut set = PairSet::new();
            let mut x = 12345u32;
            for _ in 0..2000 {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                let (a, b) = ((x >> 8) % 64, (x >> 20) % 64);
                if x & 1 == 0 {
                    set.insert(a, b);
                } else {
                    set.remove(a, b);
                }
            }
            set.as_slice().to_vec()
        };
        assert_eq!(run(), run());
    }
}
