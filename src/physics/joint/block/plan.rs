//! How a jointed island's rows are eliminated: the order of its joints (minimum degree on
//! the joint graph) and which joints each one is coupled to after it, found once a step
//! (`assign_blocks`) and read by every solve of the island.

/// How the islands' rows are eliminated, for the step's sorted joint list: an island at
/// positions `start..end` of it has its joints (as places 0.. in the island) in elimination
/// order in `order[start..end]`, and the joints the one at `order[start + r]` is coupled
/// to, directly or through fill, and that come after it in `later[starts[start + r] as
/// usize..starts[start + r + 1] as usize]`.
#[derive(Default)]
pub(crate) struct BlockPlan {
    pub order: Vec<u32>,
    pub starts: Vec<u32>,
    pub later: Vec<u32>,
}

/// One island's part of a [`BlockPlan`].
#[derive(Clone, Copy)]
pub(crate) struct IslandPlan<'a> {
    /// The island's joints (places in it) in elimination order.
    pub order: &'a [u32],
    starts: &'a [u32],
    later: &'a [u32],
    ranges: &'a [(u32, u32)],
}

impl BlockPlan {
    /// The plan of the island at positions `start..end` of the joint list, with `ranges`
    /// the rows being solved of each of its joints (see [`BlockScratch::ranges`](super::BlockScratch::ranges)).
    pub(crate) fn island<'a>(
        &'a self,
        start: usize,
        end: usize,
        ranges: &'a [(u32, u32)],
    ) -> IslandPlan<'a> {
        IslandPlan {
            order: &self.order[start..end],
            starts: &self.starts[start..=end],
            later: &self.later,
            ranges,
        }
    }
}

impl IslandPlan<'_> {
    /// The joints coupled to the r-th in the order and eliminated after it.
    pub fn later(&self, r: usize) -> &[u32] {
        &self.later[self.starts[r] as usize..self.starts[r + 1] as usize]
    }

    /// Whether every joint's rows lie within the island's `n` rows.
    pub fn rows_within(&self, n: usize) -> bool {
        self.ranges
            .iter()
            .all(|&(start, end)| start <= end && end as usize <= n)
    }

    /// The rows of the joint at place `joint` of the island.
    pub fn rows(&self, joint: u32) -> std::ops::Range<usize> {
        let (start, end) = self.ranges[joint as usize];
        start as usize..end as usize
    }
}

/// Orders the joints of one island for elimination (minimum degree, George and Liu 1989,
/// "The evolution of the minimum degree ordering algorithm", in its simplest form on the
/// joint graph): `weights[j]` is joint j's rows, `touching` the (body, joint) pairs of its
/// joints' bodies (the world left out), sorted. Writes the order and each joint's later
/// neighbours into `plan` (positions `start..start + weights.len()`), and returns about
/// how many multiply-adds one elimination takes: Σ over joints of w·(w + later rows)².
#[allow(clippy::too_many_arguments)]
pub(crate) fn order_island(
    start: usize,
    weights: &[u32],
    touching: &[(u32, u32)],
    plan: &mut BlockPlan,
    adjacency: &mut Vec<bool>,
    degree: &mut Vec<u64>,
    eliminated: &mut Vec<bool>,
) -> u64 {
    let n = weights.len();
    adjacency.clear();
    adjacency.resize(n * n, false);
    // Joints that share a body couple; joints without block rows couple nothing.
    let mut i = 0;
    while i < touching.len() {
        let body = touching[i].0;
        let end = i + touching[i..].iter().take_while(|t| t.0 == body).count();
        for a in i..end {
            for b in a + 1..end {
                let (p, q) = (touching[a].1 as usize, touching[b].1 as usize);
                if p != q && weights[p] > 0 && weights[q] > 0 {
                    adjacency[p * n + q] = true;
                    adjacency[q * n + p] = true;
                }
            }
        }
        i = end;
    }
    degree.clear();
    degree.extend((0..n).map(|p| {
        (0..n)
            .filter(|&q| adjacency[p * n + q])
            .map(|q| weights[q] as u64)
            .sum::<u64>()
    }));
    eliminated.clear();
    eliminated.resize(n, false);
    // Positions before `start` that no island's plan filled (joints solved one by one)
    // are padding.
    plan.order.resize(start, 0);
    plan.starts.resize(start, plan.later.len() as u32);
    let mut work = 0u64;
    for _ in 0..n {
        let Some(p) = (0..n)
            .filter(|&p| !eliminated[p])
            .min_by_key(|&p| (degree[p], p))
        else {
            break;
        };
        eliminated[p] = true;
        plan.order.push(p as u32);
        plan.starts.push(plan.later.len() as u32);
        let first = plan.later.len();
        plan.later.extend(
            (0..n)
                .filter(|&q| !eliminated[q] && adjacency[p * n + q])
                .map(|q| q as u32),
        );
        let w = weights[p] as u64;
        let reach: u64 = plan.later[first..]
            .iter()
            .map(|&q| weights[q as usize] as u64)
            .sum();
        work += w * (w + reach) * (w + reach);
        // Its neighbours lose it and gain each other (the fill).
        for a in first..plan.later.len() {
            let q = plan.later[a] as usize;
            degree[q] -= w;
            for b in a + 1..plan.later.len() {
                let r = plan.later[b] as usize;
                if !adjacency[q * n + r] {
                    adjacency[q * n + r] = true;
                    adjacency[r * n + q] = true;
                    degree[q] += weights[r] as u64;
                    degree[r] += weights[q] as u64;
                }
            }
        }
    }
    plan.starts.push(plan.later.len() as u32);
    work
}
