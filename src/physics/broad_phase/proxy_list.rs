//! The proxy bookkeeping shared by the broad phases that keep their proxies in a flat list and
//! build their structure from it ([`super::BruteForce`], [`super::Quadtree`],
//! [`super::UniformGrid`]): slots with fat AABBs and user values, a free list, the move buffer,
//! and the sorted report of `update_pairs`.
//!
//! It follows the fattening and re-insertion policy of the module ([`fatten_aabb`],
//! [`needs_reinsert`]), so every broad phase fed the same calls holds the same fat boxes.

use super::{fatten_aabb, needs_reinsert, ProxyId};
use crate::physics::aabb::Aabb;
use glam::Vec3;

/// One slot of the proxy list.
#[derive(Clone, Copy, Debug)]
pub struct Slot {
    /// The fat AABB.
    pub fat_aabb: Aabb,
    /// The caller's value (a collider index).
    pub user: u32,
    /// False once destroyed; the slot then waits in the free list.
    pub live: bool,
    /// True while the proxy is in the move buffer.
    pub moved: bool,
}

/// Proxies by id, the free ids and the move buffer. `name` goes into panics and validation
/// messages.
#[derive(Clone, Debug)]
pub struct ProxyList {
    name: &'static str,
    /// Proxies indexed by [`ProxyId`], live or free.
    slots: Vec<Slot>,
    /// Ids of free slots, reused last-freed first.
    free: Vec<ProxyId>,
    /// Proxies created, re-inserted or touched since the last `update_pairs`.
    move_buffer: Vec<ProxyId>,
}

impl ProxyList {
    /// An empty list whose messages name `name` ("brute force", "quadtree", ...).
    pub fn new(name: &'static str) -> Self {
        Self {
            name,
            slots: Vec::new(),
            free: Vec::new(),
            move_buffer: Vec::new(),
        }
    }

    /// The live slot of `proxy`; panics on a destroyed or unknown id (a caller bug).
    pub fn slot(&self, proxy: ProxyId) -> &Slot {
        match self.slots.get(proxy as usize) {
            Some(slot) if slot.live => slot,
            _ => panic!("{}: proxy {proxy} is not live", self.name),
        }
    }

    /// Mutable access to the live slot of `proxy`; panics like [`Self::slot`].
    fn slot_mut(&mut self, proxy: ProxyId) -> &mut Slot {
        match self.slots.get_mut(proxy as usize) {
            Some(slot) if slot.live => slot,
            _ => panic!("{}: proxy {proxy} is not live", self.name),
        }
    }

    /// The slot of `proxy` whether live or not (None past the end), for structures that may
    /// still list an id destroyed since they were built.
    pub fn get(&self, proxy: ProxyId) -> Option<&Slot> {
        self.slots.get(proxy as usize)
    }

    /// Live proxies with their ids, in id order.
    pub fn live(&self) -> impl Iterator<Item = (ProxyId, &Slot)> {
        self.slots
            .iter()
            .enumerate()
            .filter(|(_, slot)| slot.live)
            .map(|(id, slot)| (id as ProxyId, slot))
    }

    /// The move buffer: proxies created, re-inserted or touched since the last report.
    pub fn moved(&self) -> &[ProxyId] {
        &self.move_buffer
    }

    /// Number of slots, live or free (ids are below it).
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    /// Puts `proxy` in the move buffer unless it is already there.
    pub fn buffer_move(&mut self, proxy: ProxyId) {
        let slot = self.slot_mut(proxy);
        if !slot.moved {
            slot.moved = true;
            self.move_buffer.push(proxy);
        }
    }

    /// Bytes held by the list's buffers.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
            + (self.free.capacity() + self.move_buffer.capacity()) * std::mem::size_of::<ProxyId>()
    }

    /// See [`super::BroadPhase::create_proxy_fat`].
    pub fn create(&mut self, fat: Aabb, user: u32) -> ProxyId {
        let slot = Slot {
            fat_aabb: fat,
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

    /// See [`super::BroadPhase::destroy_proxy`].
    pub fn destroy(&mut self, proxy: ProxyId) {
        let slot = self.slot_mut(proxy);
        slot.live = false;
        if slot.moved {
            slot.moved = false;
            self.move_buffer.retain(|&id| id != proxy);
        }
        self.free.push(proxy);
    }

    /// See [`super::BroadPhase::move_proxy`].
    pub fn move_proxy(&mut self, proxy: ProxyId, aabb: Aabb, displacement: Vec3) -> bool {
        let fresh = fatten_aabb(&aabb, displacement);
        let slot = self.slot_mut(proxy);
        if !needs_reinsert(&slot.fat_aabb, &aabb, &fresh, displacement) {
            return false;
        }
        slot.fat_aabb = fresh;
        self.buffer_move(proxy);
        true
    }

    /// Number of live proxies.
    pub fn count(&self) -> usize {
        self.slots.len() - self.free.len()
    }

    /// Sorts `pairs` (found for the moved proxies), reports them and empties the move buffer.
    /// Sorting makes the report independent of the order proxies moved in and of the
    /// structure's layout.
    pub fn report_and_clear(&mut self, pairs: &mut [(u32, u32)], report: &mut dyn FnMut(u32, u32)) {
        pairs.sort_unstable();
        for &(user_a, user_b) in pairs.iter() {
            report(user_a, user_b);
        }
        for &proxy in &self.move_buffer {
            self.slots[proxy as usize].moved = false;
        }
        self.move_buffer.clear();
    }

    /// Whether the pair of `proxy` (moved) and `other` should be kept by `proxy`'s side: a pair
    /// of two moved proxies is found from both sides and only the smaller id keeps it.
    pub fn keeps_pair(&self, proxy: ProxyId, other: ProxyId) -> bool {
        other != proxy && !(self.slots[other as usize].moved && other < proxy)
    }

    /// Visits the moved proxies (those a built structure holds stale copies of, or none)
    /// whose fat box overlaps `aabb`; false if `visit` stopped the query.
    pub fn query_moved(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool) -> bool {
        self.move_buffer.iter().all(|&id| {
            let slot = &self.slots[id as usize];
            !slot.fat_aabb.overlaps(aabb) || visit(slot.user)
        })
    }

    /// Visits every live proxy whose fat box overlaps `aabb`.
    pub fn query_live(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool) {
        for (_, slot) in self.live() {
            if slot.fat_aabb.overlaps(aabb) && !visit(slot.user) {
                return;
            }
        }
    }

    /// The closest-hit ray cast step of [`super::BroadPhase::ray_cast`] over the moved
    /// proxies; false if `visit` stopped the cast.
    pub fn ray_cast_moved(
        &self,
        origin: Vec3,
        dir: Vec3,
        clip: &mut f32,
        visit: &mut dyn FnMut(u32, f32) -> f32,
    ) -> bool {
        self.move_buffer.iter().all(|&id| {
            let slot = &self.slots[id as usize];
            super::visit_ray_box(&slot.fat_aabb, slot.user, origin, dir, clip, visit)
        })
    }

    /// [`super::BroadPhase::ray_cast`] over every live proxy.
    pub fn ray_cast_live(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        visit: &mut dyn FnMut(u32, f32) -> f32,
    ) {
        let mut clip = max_t;
        for (_, slot) in self.live() {
            if !super::visit_ray_box(&slot.fat_aabb, slot.user, origin, dir, &mut clip, visit) {
                return;
            }
        }
    }

    /// Checks the free list (in range, no duplicates, only dead slots, every dead slot
    /// listed), the move buffer (live, flagged, no duplicates, every flagged proxy listed) and
    /// that user values are distinct.
    pub fn validate(&self) -> Result<(), String> {
        let name = self.name;
        let mut listed = vec![false; self.slots.len()];
        for &id in &self.free {
            match self.slots.get(id as usize) {
                None => return Err(format!("{name}: free id {id} out of range")),
                Some(slot) if slot.live => return Err(format!("{name}: free id {id} is live")),
                Some(_) if listed[id as usize] => {
                    return Err(format!("{name}: free id {id} listed twice"))
                }
                Some(_) => listed[id as usize] = true,
            }
        }
        let dead = self.slots.iter().filter(|slot| !slot.live).count();
        if dead != self.free.len() {
            return Err(format!(
                "{name}: {dead} dead slots but {} free ids",
                self.free.len()
            ));
        }
        let mut seen = vec![false; self.slots.len()];
        for &id in &self.move_buffer {
            match self.slots.get(id as usize) {
                Some(slot) if slot.live && slot.moved => {}
                _ => return Err(format!("{name}: moved id {id} is not a flagged proxy")),
            }
            if std::mem::replace(&mut seen[id as usize], true) {
                return Err(format!("{name}: id {id} twice in the move buffer"));
            }
        }
        let flagged = self.slots.iter().filter(|slot| slot.moved).count();
        if flagged != self.move_buffer.len() {
            return Err(format!(
                "{name}: {flagged} moved flags but {} buffered moves",
                self.move_buffer.len()
            ));
        }
        let mut users: Vec<u32> = self.live().map(|(_, slot)| slot.user).collect();
        users.sort_unstable();
        if let Some(pair) = users.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("{name}: user {} used by two proxies", pair[0]));
        }
        Ok(())
    }
}

/// The [`super::BroadPhase`] methods that only pass through to the implementing type's
/// `proxies: ProxyList` and `tests: u64` fields (the type must be `Clone + Send`).
macro_rules! delegate_to_proxy_list {
    () => {
        fn box_clone(&self) -> Box<dyn BroadPhase + Send + Sync> {
            Box::new(self.clone())
        }

        fn create_proxy_fat(&mut self, fat: Aabb, user: u32) -> ProxyId {
            self.proxies.create(fat, user)
        }

        fn destroy_proxy(&mut self, proxy: ProxyId) {
            self.proxies.destroy(proxy);
        }

        fn move_proxy(&mut self, proxy: ProxyId, aabb: Aabb, displacement: Vec3) -> bool {
            self.proxies.move_proxy(proxy, aabb, displacement)
        }

        fn touch_proxy(&mut self, proxy: ProxyId) {
            self.proxies.buffer_move(proxy);
        }

        fn fat_aabb(&self, proxy: ProxyId) -> Aabb {
            self.proxies.slot(proxy).fat_aabb
        }

        fn user_data(&self, proxy: ProxyId) -> u32 {
            self.proxies.slot(proxy).user
        }

        fn proxy_count(&self) -> usize {
            self.proxies.count()
        }

        fn pair_tests(&self) -> u64 {
            self.tests
        }
    };
}
pub(crate) use delegate_to_proxy_list;
