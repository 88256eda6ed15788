//! The O(n²) reference broad phase: a flat list of proxies, every query tests every proxy.
//!
//! It follows exactly the same fattening and re-insertion policy as [`super::DynamicTree`]
//! ([`super::fatten_aabb`], [`super::needs_reinsert`], through `ProxyList`) and the same
//! `update_pairs` contract, so for the same sequence of calls both report the same pairs in the
//! same order. Tests use it as ground truth; it is also a fair choice for a handful of bodies.

use super::proxy_list::{delegate_to_proxy_list, ProxyList};
use super::{ordered_pair, BroadPhase, BroadPhaseNode, ProxyId};
use crate::physics::aabb::Aabb;
use glam::Vec3;

/// The brute-force broad phase. See the module documentation.
#[derive(Clone, Debug)]
pub struct BruteForce {
    proxies: ProxyList,
    /// Scratch for `update_pairs`, kept to avoid allocating every step.
    pair_buffer: Vec<(u32, u32)>,
    /// What each block of moved proxies found (`update_pairs` on several workers).
    block_pairs: super::BlockPairs,
    /// Box overlap tests in the last `update_pairs`.
    tests: u64,
}

impl Default for BruteForce {
    fn default() -> Self {
        Self {
            proxies: ProxyList::new("brute force"),
            pair_buffer: Vec::new(),
            block_pairs: Vec::new(),
            tests: 0,
        }
    }
}

impl BruteForce {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }
}

impl BroadPhase for BruteForce {
    fn name(&self) -> &'static str {
        "brute force"
    }

    delegate_to_proxy_list!();

    fn heap_bytes(&self) -> usize {
        self.proxies.heap_bytes()
            + self.pair_buffer.capacity() * std::mem::size_of::<(u32, u32)>()
            + super::block_pairs_bytes(&self.block_pairs)
    }

    fn update_pairs(&mut self, report: &mut dyn FnMut(u32, u32)) {
        let mut pairs = std::mem::take(&mut self.pair_buffer);
        pairs.clear();
        let mut blocks = std::mem::take(&mut self.block_pairs);
        let proxies = &self.proxies;
        self.tests =
            super::collect_in_blocks(proxies.moved(), &mut blocks, &mut pairs, &|proxy, out| {
                let this = proxies.slot(proxy);
                let mut tests = 0;
                for (other, slot) in proxies.live() {
                    if proxies.keeps_pair(proxy, other) {
                        tests += 1;
                        if slot.fat_aabb.overlaps(&this.fat_aabb) {
                            out.push(ordered_pair(this.user, slot.user));
                        }
                    }
                }
                tests
            });
        self.block_pairs = blocks;
        self.proxies.report_and_clear(&mut pairs, report);
        self.pair_buffer = pairs;
    }

    fn query(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool) {
        self.proxies.query_live(aabb, visit);
    }

    fn ray_cast(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        visit: &mut dyn FnMut(u32, f32) -> f32,
    ) {
        self.proxies.ray_cast_live(origin, dir, max_t, visit);
    }

    fn debug_nodes(&self, out: &mut Vec<BroadPhaseNode>) {
        out.extend(self.proxies.live().map(|(_, slot)| BroadPhaseNode {
            aabb: slot.fat_aabb,
            depth: 0,
            is_leaf: true,
            children_overlap: false,
            count: 1,
        }));
    }

    fn validate(&self) -> Result<(), String> {
        self.proxies.validate()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cube(center: Vec3, half: f32) -> Aabb {
        Aabb::from_center_half_extents(center, Vec3::splat(half))
    }

    fn pairs(bp: &mut BruteForce) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        bp.update_pairs(&mut |a, b| out.push((a, b)));
        out
    }

    #[test]
    fn reports_new_pairs_once_then_only_after_motion() {
        let mut bp = BruteForce::new();
        bp.create_proxy(cube(Vec3::ZERO, 0.5), 10);
        let b = bp.create_proxy(cube(Vec3::new(0.9, 0.0, 0.0), 0.5), 20);
        bp.create_proxy(cube(Vec3::new(5.0, 0.0, 0.0), 0.5), 30);
        assert_eq!(pairs(&mut bp), vec![(10, 20)]);
        assert_eq!(pairs(&mut bp), vec![], "nothing moved");
        // A move inside the fat box is not a re-insertion, so nothing is reported.
        let small = cube(Vec3::new(0.95, 0.0, 0.0), 0.5);
        assert!(!bp.move_proxy(b, small, Vec3::new(0.05, 0.0, 0.0)));
        assert_eq!(pairs(&mut bp), vec![]);
        bp.touch_proxy(b);
        bp.touch_proxy(b);
        assert_eq!(
            pairs(&mut bp),
            vec![(10, 20)],
            "a touch reports again, once"
        );
        bp.validate().unwrap();
    }

    #[test]
    fn destroyed_ids_are_reused_and_unbuffered() {
        let mut bp = BruteForce::new();
        let a = bp.create_proxy(cube(Vec3::ZERO, 0.5), 1);
        let b = bp.create_proxy(cube(Vec3::ZERO, 0.5), 2);
        bp.destroy_proxy(a);
        bp.validate().unwrap();
        assert_eq!(bp.proxy_count(), 1);
        assert_eq!(pairs(&mut bp), vec![]);
        let c = bp.create_proxy(cube(Vec3::ZERO, 0.5), 3);
        assert_eq!(c, a, "the free slot is reused");
        assert_eq!(pairs(&mut bp), vec![(2, 3)]);
        assert_eq!(bp.user_data(b), 2);
        bp.validate().unwrap();
    }

    #[test]
    fn validate_catches_duplicate_users() {
        let mut bp = BruteForce::new();
        bp.create_proxy(cube(Vec3::ZERO, 0.5), 7);
        bp.create_proxy(cube(Vec3::X, 0.5), 7);
        assert!(bp.validate().is_err());
    }
}
