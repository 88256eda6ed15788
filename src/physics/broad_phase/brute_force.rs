//! The O(n²) reference broad phase: a flat list of proxies, every query tests every proxy.
//!
//! It follows exactly the same fattening and re-insertion policy as [`super::DynamicTree`]
//! ([`fatten_aabb`], [`needs_reinsert`]) and the same `update_pairs` contract, so for the same
//! sequence of calls both report the same pairs in the same order. Tests use it as ground truth;
//! it is also a fair choice for a handful of bodies.

use super::{fatten_aabb, needs_reinsert, ordered_pair, BroadPhase, BroadPhaseNode, ProxyId};
use crate::physics::aabb::Aabb;
use glam::Vec3;

/// One slot of the proxy list.
#[derive(Clone, Copy, Debug)]
struct Slot {
    /// The fat AABB.
    fat_aabb: Aabb,
    /// The caller's value (a collider index).
    user: u32,
    /// False once destroyed; the slot then waits in the free list.
    live: bool,
    /// True while the proxy is in the move buffer.
    moved: bool,
}

/// The brute-force broad phase. See the module documentation.
#[derive(Clone, Debug, Default)]
pub struct BruteForce {
    /// Proxies indexed by [`ProxyId`], live or free.
    slots: Vec<Slot>,
    /// Ids of free slots, reused last-freed first.
    free: Vec<ProxyId>,
    /// Proxies created, re-inserted or touched since the last `update_pairs`.
    move_buffer: Vec<ProxyId>,
    /// Scratch for `update_pairs`, kept to avoid allocating every step.
    pair_buffer: Vec<(u32, u32)>,
}

impl BruteForce {
    /// An empty broad phase.
    pub fn new() -> Self {
        Self::default()
    }

    /// The live slot of `proxy`; panics on a destroyed or unknown id (a caller bug).
    fn slot(&self, proxy: ProxyId) -> &Slot {
        match self.slots.get(proxy as usize) {
            Some(slot) if slot.live => slot,
            _ => panic!("brute force: proxy {proxy} is not live"),
        }
    }

    /// Mutable access to the live slot of `proxy`; panics like [`Self::slot`].
    fn slot_mut(&mut self, proxy: ProxyId) -> &mut Slot {
        match self.slots.get_mut(proxy as usize) {
            Some(slot) if slot.live => slot,
            _ => panic!("brute force: proxy {proxy} is not live"),
        }
    }

    /// Live proxies with their ids, in id order.
    fn live(&self) -> impl Iterator<Item = (ProxyId, &Slot)> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.live)
            .map(|(id, slot)| (id as ProxyId, slot))
    }

    /// Puts `proxy` in the move buffer unless it is already there.
    fn buffer_move(&mut self, proxy: ProxyId) {
        let slot = self.slot_mut(proxy);
        if !slot.moved {
            slot.moved = true;
            self.move_buffer.push(proxy);
        }
    }

    /// Collects into `pairs` the pairs found for the moved `proxy`. A pair of two moved proxies
    /// is found from both sides; only the side with the smaller id keeps it.
    fn collect_pairs_of(&self, proxy: ProxyId, pairs: &mut Vec<(u32, u32)>) {
        let this = self.slot(proxy);
        for (other, slot) in self.live() {
            let counted_by_other = slot.moved && other < proxy;
            if other != proxy && !counted_by_other && slot.fat_aabb.overlaps(&this.fat_aabb) {
                pairs.push(ordered_pair(this.user, slot.user));
            }
        }
    }
}

impl BroadPhase for BruteForce {
    fn name(&self) -> &'static str {
        "brute force"
    }

    fn box_clone(&self) -> Box<dyn BroadPhase + Send> {
        Box::new(self.clone())
    }

    fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
            + (self.free.capacity() + self.move_buffer.capacity()) * std::mem::size_of::<ProxyId>()
            + self.pair_buffer.capacity() * std::mem::size_of::<(u32, u32)>()
    }

    fn create_proxy(&mut self, aabb: Aabb, user: u32) -> ProxyId {
        let slot = Slot {
            fat_aabb: fatten_aabb(&aabb, Vec3::ZERO),
            user,
            live: true,
            moved: false,
        };
        let proxy = match self.free.pop() {
            Some(id) => {
                self.slots[id as usize] = slot;
                id
            }
            None => {
                self.slots.push(slot);
                (self.slots.len() - 1) as ProxyId
            }
        };
        self.buffer_move(proxy);
        proxy
    }

    fn destroy_proxy(&mut self, proxy: ProxyId) {
        let slot = self.slot_mut(proxy);
        slot.live = false;
        if slot.moved {
            slot.moved = false;
            self.move_buffer.retain(|&id| id != proxy);
        }
        self.free.push(proxy);
    }

    fn move_proxy(&mut self, proxy: ProxyId, aabb: Aabb, displacement: Vec3) -> bool {
        let fresh = fatten_aabb(&aabb, displacement);
        let slot = self.slot_mut(proxy);
        if !needs_reinsert(&slot.fat_aabb, &aabb, &fresh) {
            return false;
        }
        slot.fat_aabb = fresh;
        self.buffer_move(proxy);
        true
    }

    fn touch_proxy(&mut self, proxy: ProxyId) {
        self.buffer_move(proxy);
    }

    fn fat_aabb(&self, proxy: ProxyId) -> Aabb {
        self.slot(proxy).fat_aabb
    }

    fn user_data(&self, proxy: ProxyId) -> u32 {
        self.slot(proxy).user
    }

    fn proxy_count(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    fn update_pairs(&mut self, report: &mut dyn FnMut(u32, u32)) {
        let mut pairs = std::mem::take(&mut self.pair_buffer);
        pairs.clear();
        for &proxy in &self.move_buffer {
            self.collect_pairs_of(proxy, &mut pairs);
        }
        // Sorting makes the report independent of the order proxies moved in.
        pairs.sort_unstable();
        for &(user_a, user_b) in &pairs {
            report(user_a, user_b);
        }
        for &proxy in &self.move_buffer {
            self.slots[proxy as usize].moved = false;
        }
        self.move_buffer.clear();
        self.pair_buffer = pairs;
    }

    fn query(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool) {
        for (_, slot) in self.live() {
            if slot.fat_aabb.overlaps(aabb) && !visit(slot.user) {
                return;
            }
        }
    }

    fn ray_cast(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        visit: &mut dyn FnMut(u32, f32) -> f32,
    ) {
        let mut clip = max_t;
        for (_, slot) in self.live() {
            if slot.fat_aabb.ray_intersection(origin, dir, clip).is_some() {
                let new_clip = visit(slot.user, clip);
                if new_clip <= 0.0 {
                    return;
                }
                clip = clip.min(new_clip);
            }
        }
    }

    fn debug_nodes(&self, out: &mut Vec<BroadPhaseNode>) {
        out.extend(self.live().map(|(_, slot)| BroadPhaseNode {
            aabb: slot.fat_aabb,
            depth: 0,
            is_leaf: true,
            children_overlap: false,
        }));
    }

    /// Checks the free list (in range, no duplicates, only dead slots, every dead slot listed),
    /// the move buffer (live, flagged, no duplicates, every flagged proxy listed) and that user
    /// values are distinct.
    fn validate(&self) -> Result<(), String> {
        self.validate_free_list()?;
        self.validate_move_buffer()?;
        let mut users: Vec<u32> = self.live().map(|(_, slot)| slot.user).collect();
        users.sort_unstable();
        if let Some(pair) = users.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("brute force: user {} used by two proxies", pair[0]));
        }
        Ok(())
    }
}

impl BruteForce {
    /// Free list: each entry a distinct dead slot, and every dead slot listed.
    fn validate_free_list(&self) -> Result<(), String> {
        let mut listed = vec![false; self.slots.len()];
        for &id in &self.free {
            match self.slots.get(id as usize) {
                None => return Err(format!("brute force: free id {id} out of range")),
                Some(slot) if slot.live => {
                    return Err(format!("brute force: free id {id} is live"))
                }
                Some(_) if listed[id as usize] => {
                    return Err(format!("brute force: free id {id} listed twice"))
                }
                Some(_) => listed[id as usize] = true,
            }
        }
        let dead = self.slots.iter().filter(|slot| !slot.live).count();
        if dead != self.free.len() {
            return Err(format!(
                "brute force: {dead} dead slots but {} free ids",
                self.free.len()
            ));
        }
        Ok(())
    }

    /// Move buffer: each entry a distinct live proxy with its `moved` flag, and no other flags.
    fn validate_move_buffer(&self) -> Result<(), String> {
        let mut seen = vec![false; self.slots.len()];
        for &id in &self.move_buffer {
            match self.slots.get(id as usize) {
                Some(slot) if slot.live && slot.moved => {}
                _ => return Err(format!("brute force: moved id {id} is not a flagged proxy")),
            }
            if std::mem::replace(&mut seen[id as usize], true) {
                return Err(format!("brute force: id {id} twice in the move buffer"));
            }
        }
        let flagged = self.slots.iter().filter(|slot| slot.moved).count();
        if flagged != self.move_buffer.len() {
            return Err(format!(
                "brute force: {flagged} moved flags but {} buffered moves",
                self.move_buffer.len()
            ));
        }
        Ok(())
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
