//! A uniform grid (spatial hash) of cubic cells.
//!
//! Each proxy is listed in every cell its fat box touches; two proxies are a candidate pair in
//! a cell they share, and the pair is tested only in the first cell they share (the one at
//! the larger of their two lowest cell coordinates on each axis), so it is found once without
//! a set of seen pairs. The cells are kept as one sorted list of (cell key, proxy) entries
//! instead of a hash map: building it is a sort, finding a cell a binary search, and the order
//! never depends on hashing.
//!
//! Proxies that would cover more than [`MAX_CELLS_PER_PROXY`] cells (planes, ground slabs) are
//! *omnipresent*: kept in a list of their own and tested against everything, instead of being
//! written into thousands of cells.
//!
//! The cell size is given, or chosen at every build as twice the mean largest extent of the
//! proxies' fat boxes (leaving out the huge ones), so a typical body spans one or two cells.
//! Like the quadtree it is rebuilt every step (see `quadtree.rs` for why); between builds the
//! proxies in the move buffer are tested one by one. Ray casts test every proxy's box (picking
//! is one ray per click; a grid walk would not pay for itself here).

use super::proxy_list::{delegate_to_proxy_list, ProxyList};
use super::{ordered_pair, BroadPhase, BroadPhaseNode, ProxyId};
use crate::physics::aabb::Aabb;
use glam::{IVec3, Vec3};

/// A proxy spanning more cells than this is omnipresent (tested against everything).
pub const MAX_CELLS_PER_PROXY: i64 = 64;

/// A box query spanning more cells than this tests every proxy instead of walking the cells.
const MAX_CELLS_PER_QUERY: i64 = 4096;

/// Cell coordinates are kept within ±2²⁰ (21 bits each in a key); proxies beyond are
/// omnipresent.
const COORD_LIMIT: i32 = 1 << 20;

/// Proxies larger than this (m, any axis) do not count towards the automatic cell size.
const HUGE_EXTENT: f32 = 1000.0;

/// The smallest cell allowed, m (the automatic size is clamped to it too).
pub const MIN_CELL_SIZE: f32 = 0.01;
/// The largest cell allowed, m.
pub const MAX_CELL_SIZE: f32 = 1.0e4;

/// The uniform grid broad phase. See the module documentation.
#[derive(Clone, Debug)]
pub struct UniformGrid {
    proxies: ProxyList,
    /// The cell size asked for (None: chosen from the proxies at every build).
    requested: Option<f32>,
    /// The cell size of the last build, m.
    cell: f32,
    /// (cell key, proxy) for every cell of every bounded proxy, sorted.
    entries: Vec<(u64, ProxyId)>,
    /// Proxies tested against everything, in id order.
    omnipresent: Vec<ProxyId>,
    /// Scratch for `update_pairs`.
    pair_buffer: Vec<(u32, u32)>,
    /// What each block of moved proxies found (`update_pairs` on several workers).
    block_pairs: super::BlockPairs,
    /// Candidate pairs tested in the last `update_pairs`.
    tests: u64,
}

impl Default for UniformGrid {
    fn default() -> Self {
        Self::new(None)
    }
}

impl UniformGrid {
    /// An empty grid with cells of `cell_size` m, or chosen from the proxies when None. The size
    /// is clamped to [`MIN_CELL_SIZE`]..=[`MAX_CELL_SIZE`] (the world's settings validation
    /// refuses other values with a message).
    pub fn new(cell_size: Option<f32>) -> Self {
        let requested = cell_size.map(|c| c.clamp(MIN_CELL_SIZE, MAX_CELL_SIZE));
        Self {
            proxies: ProxyList::new("grid"),
            requested,
            cell: requested.unwrap_or(1.0),
            entries: Vec::new(),
            omnipresent: Vec::new(),
            pair_buffer: Vec::new(),
            block_pairs: Vec::new(),
            tests: 0,
        }
    }

    /// The cell size of the last build, m.
    pub fn cell_size(&self) -> f32 {
        self.cell
    }

    /// The cells `aabb` touches, lowest and highest corner; None when it would be omnipresent.
    fn cell_range(&self, aabb: &Aabb) -> Option<(IVec3, IVec3)> {
        let lo = (aabb.min / self.cell).floor();
        let hi = (aabb.max / self.cell).floor();
        let limit = COORD_LIMIT as f32;
        if !(lo.cmpge(Vec3::splat(-limit)).all() && hi.cmplt(Vec3::splat(limit)).all()) {
            return None;
        }
        let (lo, hi) = (lo.as_ivec3(), hi.as_ivec3());
        let span = (hi - lo + IVec3::ONE).as_i64vec3();
        (span.x * span.y * span.z <= MAX_CELLS_PER_PROXY).then_some((lo, hi))
    }

    /// The sort key of a cell.
    fn key(cell: IVec3) -> u64 {
        let bias = |c: i32| (c + COORD_LIMIT) as u64;
        (bias(cell.x) << 42) | (bias(cell.y) << 21) | bias(cell.z)
    }

    /// The entries of one cell.
    fn cell_entries(&self, cell: IVec3) -> &[(u64, ProxyId)] {
        let key = Self::key(cell);
        let start = self.entries.partition_point(|e| e.0 < key);
        let end = start + self.entries[start..].partition_point(|e| e.0 == key);
        &self.entries[start..end]
    }

    /// Chooses the cell size and lists every live proxy in its cells (or as omnipresent).
    fn rebuild(&mut self) {
        self.cell = self.requested.unwrap_or_else(|| {
            let (sum, count) = self
                .proxies
                .live()
                .map(|(_, s)| (s.fat_aabb.max - s.fat_aabb.min).max_element())
                .filter(|&e| e <= HUGE_EXTENT)
                .fold((0.0f64, 0u32), |(sum, n), e| (sum + f64::from(e), n + 1));
            if count == 0 {
                1.0
            } else {
                (2.0 * sum / f64::from(count)) as f32
            }
            .clamp(MIN_CELL_SIZE, MAX_CELL_SIZE)
        });
        self.entries.clear();
        self.omnipresent.clear();
        for id in 0..self.proxies.capacity() as ProxyId {
            let Some(slot) = self.proxies.get(id).filter(|s| s.live) else {
                continue;
            };
            let Some((lo, hi)) = self.cell_range(&slot.fat_aabb) else {
                self.omnipresent.push(id);
                continue;
            };
            for x in lo.x..=hi.x {
                for y in lo.y..=hi.y {
                    for z in lo.z..=hi.z {
                        self.entries.push((Self::key(IVec3::new(x, y, z)), id));
                    }
                }
            }
        }
        self.entries.sort_unstable();
    }

    /// Visits the built grid's proxies (skipping those moved since the build when
    /// `skip_moved`) whose fat box overlaps `aabb`, each once; returns the boxes tested and
    /// false if `visit` stopped the query.
    fn query_grid(
        &self,
        aabb: &Aabb,
        skip_moved: bool,
        visit: &mut dyn FnMut(ProxyId) -> bool,
    ) -> (u64, bool) {
        let mut tests = 0;
        let usable = |id: ProxyId| {
            self.proxies
                .get(id)
                .filter(|s| s.live && !(skip_moved && s.moved))
        };
        let range = self.cell_range_for_query(aabb);
        match range {
            Some((lo, hi)) => {
                for x in lo.x..=hi.x {
                    for y in lo.y..=hi.y {
                        for z in lo.z..=hi.z {
                            let cell = IVec3::new(x, y, z);
                            for &(_, id) in self.cell_entries(cell) {
                                let Some(slot) = usable(id) else {
                                    continue;
                                };
                                // Only in the first cell the proxy and the query share.
                                let Some((plo, _)) = self.cell_range(&slot.fat_aabb) else {
                                    continue;
                                };
                                if plo.max(lo) != cell {
                                    continue;
                                }
                                tests += 1;
                                if slot.fat_aabb.overlaps(aabb) && !visit(id) {
                                    return (tests, false);
                                }
                            }
                        }
                    }
                }
                for &id in &self.omnipresent {
                    let Some(slot) = usable(id) else {
                        continue;
                    };
                    tests += 1;
                    if slot.fat_aabb.overlaps(aabb) && !visit(id) {
                        return (tests, false);
                    }
                }
            }
            None => {
                // A huge query: every proxy.
                for (id, slot) in self.proxies.live() {
                    if skip_moved && slot.moved {
                        continue;
                    }
                    tests += 1;
                    if slot.fat_aabb.overlaps(aabb) && !visit(id) {
                        return (tests, false);
                    }
                }
            }
        }
        (tests, true)
    }

    /// The cells a query box covers, or None when there are too many to walk.
    fn cell_range_for_query(&self, aabb: &Aabb) -> Option<(IVec3, IVec3)> {
        let limit = COORD_LIMIT as f32;
        let lo = (aabb.min / self.cell)
            .floor()
            .clamp(Vec3::splat(-limit), Vec3::splat(limit - 1.0));
        let hi = (aabb.max / self.cell)
            .floor()
            .clamp(Vec3::splat(-limit), Vec3::splat(limit - 1.0));
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let (lo, hi) = (lo.as_ivec3(), hi.as_ivec3());
        let span = (hi - lo + IVec3::ONE).as_i64vec3();
        (span.x * span.y * span.z <= MAX_CELLS_PER_QUERY).then_some((lo, hi))
    }
}

impl BroadPhase for UniformGrid {
    fn name(&self) -> &'static str {
        "uniform grid"
    }

    delegate_to_proxy_list!();

    fn heap_bytes(&self) -> usize {
        self.proxies.heap_bytes()
            + self.entries.capacity() * std::mem::size_of::<(u64, ProxyId)>()
            + self.omnipresent.capacity() * 4
            + self.pair_buffer.capacity() * std::mem::size_of::<(u32, u32)>()
            + super::block_pairs_bytes(&self.block_pairs)
    }

    fn update_pairs(&mut self, report: &mut dyn FnMut(u32, u32)) {
        if self.proxies.moved().is_empty() {
            // Nothing was created, moved or touched: the last build still holds every box
            // (destroyed proxies are skipped by their flag), and there are no new pairs.
            self.tests = 0;
            return;
        }
        self.rebuild();
        let mut pairs = std::mem::take(&mut self.pair_buffer);
        pairs.clear();
        let mut blocks = std::mem::take(&mut self.block_pairs);
        let grid = &*self;
        let moved = grid.proxies.moved();
        self.tests = super::collect_in_blocks(moved, &mut blocks, &mut pairs, &|proxy, out| {
            let this = grid.proxies.slot(proxy);
            let mut keep = |other: ProxyId| {
                if grid.proxies.keeps_pair(proxy, other) {
                    out.push(ordered_pair(this.user, grid.proxies.slot(other).user));
                }
                true
            };
            if grid.cell_range(&this.fat_aabb).is_some() {
                grid.query_grid(&this.fat_aabb, false, &mut keep).0
            } else {
                // Omnipresent: against everything.
                let mut tests = 0;
                for (other, slot) in grid.proxies.live() {
                    tests += 1;
                    if slot.fat_aabb.overlaps(&this.fat_aabb) {
                        keep(other);
                    }
                }
                tests
            }
        });
        self.block_pairs = blocks;
        self.proxies.report_and_clear(&mut pairs, report);
        self.pair_buffer = pairs;
    }

    fn query(&self, aabb: &Aabb, visit: &mut dyn FnMut(u32) -> bool) {
        let (_, go_on) = self.query_grid(aabb, true, &mut |id| visit(self.proxies.slot(id).user));
        if go_on {
            self.proxies.query_moved(aabb, visit);
        }
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

    /// The occupied cells of the last build, each with the number of proxies listed in it.
    fn debug_nodes(&self, out: &mut Vec<BroadPhaseNode>) {
        let mut start = 0;
        while start < self.entries.len() {
            let key = self.entries[start].0;
            let end = start + self.entries[start..].partition_point(|e| e.0 == key);
            let coord = |shift: u32| ((key >> shift) & ((1 << 21) - 1)) as i32 - COORD_LIMIT;
            let cell = IVec3::new(coord(42), coord(21), coord(0)).as_vec3() * self.cell;
            out.push(BroadPhaseNode {
                aabb: Aabb::new(cell, cell + Vec3::splat(self.cell)),
                depth: 0,
                is_leaf: false,
                children_overlap: false,
                count: (end - start) as u32,
            });
            start = end;
        }
    }

    /// The proxy list's checks, then: the entries are sorted, and every live proxy not moved
    /// since the build is listed in exactly the cells its box touches, or as omnipresent.
    fn validate(&self) -> Result<(), String> {
        self.proxies.validate()?;
        if self.entries.windows(2).any(|w| w[0] > w[1]) {
            return Err("grid: entries not sorted".into());
        }
        let mut listed = vec![0i64; self.proxies.capacity()];
        for &(_, id) in &self.entries {
            if let Some(n) = listed.get_mut(id as usize) {
                *n += 1;
            }
        }
        for (id, slot) in self.proxies.live() {
            if slot.moved {
                continue;
            }
            let omni = self.omnipresent.contains(&id);
            let expected = match self.cell_range(&slot.fat_aabb) {
                Some((lo, hi)) => {
                    let s = (hi - lo + IVec3::ONE).as_i64vec3();
                    s.x * s.y * s.z
                }
                None => 0,
            };
            if listed[id as usize] != expected || omni != (expected == 0) {
                return Err(format!(
                    "grid: proxy {id} listed in {} cells, expected {expected}",
                    listed[id as usize]
                ));
            }
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

    #[test]
    fn a_pair_sharing_many_cells_is_reported_once_and_planes_are_omnipresent() {
        let mut grid = UniformGrid::new(Some(1.0));
        // Two 2 m boxes overlapping over 1 m (fat: 2.2 m, 4 cells a side, 64 cells each):
        // they share 3·4·4 = 48 cells.
        grid.create_proxy(cube(Vec3::ZERO, 1.0), 1);
        grid.create_proxy(cube(Vec3::X, 1.0), 2);
        // A floor 200 m wide: far more than 64 cells.
        grid.create_proxy(
            Aabb::new(
                Vec3::new(-100.0, -2.0, -100.0),
                Vec3::new(100.0, -0.9, 100.0),
            ),
            3,
        );
        let mut pairs = Vec::new();
        grid.update_pairs(&mut |a, b| pairs.push((a, b)));
        assert_eq!(pairs, vec![(1, 2), (1, 3), (2, 3)]);
        assert_eq!(grid.omnipresent, vec![2]);
        grid.validate().unwrap();
    }

    #[test]
    fn the_automatic_cell_is_twice_the_mean_extent() {
        let mut grid = UniformGrid::new(None);
        // Fat boxes: 1 m + 2·margin and 3 m + 2·margin wide; mean (2 + 4·margin)/2 · 2.
        grid.create_proxy(cube(Vec3::ZERO, 0.5), 1);
        grid.create_proxy(cube(Vec3::splat(10.0), 1.5), 2);
        grid.update_pairs(&mut |_, _| {});
        let m = crate::physics::constants::AABB_MARGIN;
        let expected = (1.0 + 2.0 * m) + (3.0 + 2.0 * m);
        assert!(
            (grid.cell_size() - expected).abs() < 1e-5,
            "{}",
            grid.cell_size()
        );
    }
}
