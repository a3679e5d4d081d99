//! The generators. Each returns the entries as packed keys in row-major
//! (lexicographic) order without duplicates: `i · ncols + j` for a matrix,
//! mixed radix over the modes for a tensor.

use crate::plan::{zipf_exponent, FemPlan, PowerLawPlan, RandomPlan, StencilPlan};
use crate::rng::{hash2, unit_of, OctaveSampler, SplitMix64};
use crate::spec::Clip;

/// Stream names, so that each decision of a generator has its own sequence.
mod stream {
    pub const DROP: u64 = 1;
    pub const FORWARD: u64 = 2;
    pub const OFFSETS: u64 = 3;
    pub const COVER: u64 = 4;
    pub const POOL: u64 = 5;
    pub const LENGTHS: u64 = 6;
    pub const PICKS: u64 = 7;
    pub const MODES: u64 = 8;
    pub const TRIM: u64 = 9;
}

// ---------------------------------------------------------------------------
// Stencils

/// Every row in order, every point in offset order: the keys come out sorted.
/// Off-diagonal couplings survive with probability `keep`, decided by a hash
/// of the (unordered, when symmetric) pair so that a symmetric matrix stays
/// symmetric; the first coupling of each diagonal always survives, so the
/// number of occupied diagonals never changes.
pub(crate) fn stencil(p: &StencilPlan, symmetric: bool, seed: u64) -> Vec<u64> {
    let n = p.n;
    let expected = p.main + ((p.full - p.main) as f64 * p.keep) as u64;
    let mut keys = Vec::with_capacity(expected as usize + 16);
    let mut first = vec![true; p.points.len()];
    let drop_seed = SplitMix64::new(seed, stream::DROP).next_u64();
    let [g0, g1, g2] = p.grid;
    let mut i = 0i64;
    for z in 0..g2 {
        for y in 0..g1 {
            for x in 0..g0 {
                let c = [x, y, z];
                let layer_coord = c[p.last_axis];
                for (k, &(o, d, layer)) in p.points.iter().enumerate() {
                    if let Some(l) = layer {
                        if l != layer_coord {
                            continue;
                        }
                    }
                    let j = i + o;
                    let inside = match p.clip {
                        Clip::Flat => (0..n).contains(&j),
                        Clip::Grid => {
                            (0..g0).contains(&(x + d[0]))
                                && (0..g1).contains(&(y + d[1]))
                                && (0..g2).contains(&(z + d[2]))
                        }
                    };
                    if !inside {
                        continue;
                    }
                    if o != 0 && p.keep < 1.0 && !first[k] {
                        let (a, b) = if symmetric && j < i { (j, i) } else { (i, j) };
                        if unit_of(hash2(drop_seed, a as u64, b as u64)) >= p.keep {
                            continue;
                        }
                    }
                    first[k] = false;
                    keys.push(i as u64 * n as u64 + j as u64);
                }
                i += 1;
            }
        }
    }
    keys
}

// ---------------------------------------------------------------------------
// Finite elements

/// Nodes of `block` unknowns, every coupling a dense block, the pattern
/// symmetric. Each node gets a number of neighbours (uniform around the mean
/// the nnz asks for, at most the spec's longest row; a few nodes get exactly
/// that many), adjusted so that the total hits the nnz. Nodes are visited in
/// order and link forward to nodes `u + d` that still have room, with `d`
/// log-uniform in `[1, band]`: most couplings near the diagonal, a few far.
/// Finally every node offset of the band is made to occur at least once (by
/// moving a coupling whose offset occurs elsewhere), so the occupied
/// diagonals form the whole band.
pub(crate) fn fem(p: &FemPlan, seed: u64) -> Vec<u64> {
    let nodes = p.nodes as usize;
    let b = p.block;
    let band = p.band as u64;
    let kmax = p.max_neighbours.max(0) as u32;

    // How many neighbours each node should get.
    let mut rng = SplitMix64::new(seed, stream::FORWARD);
    let mean = p.mean_neighbours;
    let (lo, hi) = if 2.0 * mean - f64::from(kmax) >= 1.0 {
        (
            (2.0 * mean - f64::from(kmax)).round() as i64,
            i64::from(kmax),
        )
    } else {
        let lo = 1.min(i64::from(kmax));
        (
            lo,
            ((2.0 * mean).round() as i64 - lo).clamp(lo, i64::from(kmax)),
        )
    };
    let mut target: Vec<u32> = (0..nodes).map(|_| rng.range(lo, hi) as u32).collect();
    let mut fixed = vec![false; nodes];
    for _ in 0..(nodes / 2000).max(1) {
        // In the middle half, where the band has room on both sides.
        let u = nodes / 4 + rng.below((nodes / 2).max(1) as u64) as usize;
        target[u] = kmax;
        fixed[u] = true;
    }
    let floor = lo.clamp(0, 1) as u32;
    let want = 2 * p.edges;
    let mut total: u64 = target.iter().map(|&t| u64::from(t)).sum();
    let budget = 64 * total.abs_diff(want) + 4096;
    let mut tries = 0u64;
    while total != want && tries < budget {
        tries += 1;
        let u = rng.below(nodes as u64) as usize;
        if fixed[u] {
            continue;
        }
        if total < want && target[u] < kmax {
            target[u] += 1;
            total += 1;
        } else if total > want && target[u] > floor {
            target[u] -= 1;
            total -= 1;
        }
    }

    // The couplings: node lists of at most `kmax` neighbours.
    let mut g = NodeGraph {
        width: kmax as usize,
        adj: vec![0u32; nodes * kmax as usize],
        deg: vec![0u32; nodes],
        target,
        usage: vec![0u32; band as usize + 1],
    };
    let sampler = OctaveSampler::new(band.max(1), 1.0);
    let mut rng = SplitMix64::new(seed, stream::OFFSETS);

    // The nodes with the most neighbours first, on both sides.
    let mut forced: Vec<usize> = (0..nodes).filter(|&u| fixed[u]).collect();
    forced.dedup();
    for &u in &forced {
        let mut fails = 0;
        while g.room(u) && fails < 64 {
            let d = sampler.sample(&mut rng) as usize;
            let v = if rng.next_u64() & 1 == 0 {
                u + d
            } else {
                u.wrapping_sub(d)
            };
            if v >= nodes || !g.try_link(u, v) {
                fails += 1;
            }
        }
        g.fill_around(u, band as usize, &mut rng);
    }

    // Every node in order links forward to nodes with room.
    let mut stamp = vec![0u32; band as usize + 1];
    for u in 0..nodes {
        let limit = band.min((nodes - 1 - u) as u64);
        if limit == 0 || !g.room(u) {
            continue;
        }
        let mark = u as u32 + 1;
        for &w in g.neighbours(u) {
            if w as usize > u && (w as usize - u) as u64 <= band {
                stamp[w as usize - u] = mark;
            }
        }
        let mut fails = 0;
        while g.room(u) && fails < 16 * g.need(u) + 32 {
            let d = sampler.sample(&mut rng);
            if d > limit || stamp[d as usize] == mark {
                fails += 1;
                continue;
            }
            stamp[d as usize] = mark;
            if !g.link_fresh(u, u + d as usize) {
                fails += 1;
            }
        }
        if g.room(u) {
            // Crowded: scan the band from a random place.
            let first = rng.below(limit);
            for t in 0..limit.min(8192) {
                let d = 1 + (first + t) % limit;
                if stamp[d as usize] != mark {
                    stamp[d as usize] = mark;
                    g.link_fresh(u, u + d as usize);
                    if !g.room(u) {
                        break;
                    }
                }
            }
        }
    }

    // Nodes still short of neighbours link to each other, either side.
    for u in 0..nodes {
        if g.room(u) {
            g.fill_around(u, band as usize, &mut rng);
        }
    }
    let NodeGraph {
        width,
        mut adj,
        mut deg,
        mut usage,
        ..
    } = g;

    // Every offset of the band at least once.
    let full_nodes = (p.n / b) as u64;
    let mut rng = SplitMix64::new(seed, stream::COVER);
    for d in 1..=band {
        if usage[d as usize] > 0 || d >= full_nodes {
            continue;
        }
        for attempt in 0..128 {
            let u = rng.below(full_nodes - d) as usize;
            let v = u + d as usize;
            let row_u = &adj[u * width..u * width + deg[u] as usize];
            if deg[v] >= kmax || row_u.contains(&(v as u32)) {
                continue;
            }
            if attempt >= 64 && deg[u] < kmax {
                // Nothing to move: add the coupling.
                adj[u * width + deg[u] as usize] = v as u32;
                deg[u] += 1;
                adj[v * width + deg[v] as usize] = u as u32;
                deg[v] += 1;
                usage[d as usize] += 1;
                break;
            }
            if deg[u] == 0 {
                continue;
            }
            let k = rng.below(u64::from(deg[u])) as usize;
            let w = adj[u * width + k] as usize;
            if w < u || usage[w - u] < 2 {
                continue;
            }
            // Move the coupling u–w to u–v.
            let row_w = &mut adj[w * width..w * width + deg[w] as usize];
            let at = row_w.iter().position(|&x| x as usize == u).unwrap_or(0);
            let last = row_w.len() - 1;
            row_w.swap(at, last);
            deg[w] -= 1;
            usage[w - u] -= 1;
            adj[u * width + k] = v as u32;
            adj[v * width + deg[v] as usize] = u as u32;
            deg[v] += 1;
            usage[d as usize] += 1;
            break;
        }
    }

    let n = p.n;
    let total: usize = deg.iter().map(|&g| g as usize + 1).sum();
    let mut keys = Vec::with_capacity(total * (b * b) as usize);
    let mut list: Vec<u32> = Vec::with_capacity(width + 1);
    for u in 0..nodes {
        list.clear();
        list.extend_from_slice(&adj[u * width..u * width + deg[u] as usize]);
        list.push(u as u32);
        list.sort_unstable();
        for x in 0..b {
            let r = u as i64 * b + x;
            if r >= n {
                break;
            }
            for &v in &list {
                for y in 0..b {
                    let c = i64::from(v) * b + y;
                    if c < n {
                        keys.push(r as u64 * n as u64 + c as u64);
                    }
                }
            }
        }
    }
    keys
}

/// The node graph of a finite-element matrix while it is built: per node a
/// fixed-width list of neighbours, its length, the wanted length, and how
/// often each node offset occurs.
struct NodeGraph {
    width: usize,
    adj: Vec<u32>,
    deg: Vec<u32>,
    target: Vec<u32>,
    usage: Vec<u32>,
}

impl NodeGraph {
    fn neighbours(&self, u: usize) -> &[u32] {
        &self.adj[u * self.width..u * self.width + self.deg[u] as usize]
    }

    fn room(&self, u: usize) -> bool {
        self.deg[u] < self.target[u]
    }

    fn need(&self, u: usize) -> u32 {
        self.target[u].saturating_sub(self.deg[u])
    }

    /// Links `u` and `v` when both have room and `v` is within the band;
    /// the caller knows they are not linked yet.
    fn link_fresh(&mut self, u: usize, v: usize) -> bool {
        let d = u.abs_diff(v);
        if u == v || d >= self.usage.len() || !self.room(u) || !self.room(v) {
            return false;
        }
        for (a, b) in [(u, v), (v, u)] {
            self.adj[a * self.width + self.deg[a] as usize] = b as u32;
            self.deg[a] += 1;
        }
        self.usage[d] += 1;
        true
    }

    /// Links `u` and `v` when both have room and they are not linked yet.
    fn try_link(&mut self, u: usize, v: usize) -> bool {
        if v >= self.deg.len() || self.neighbours(u).contains(&(v as u32)) {
            return false;
        }
        self.link_fresh(u, v)
    }

    /// Links `u` to nodes with room on either side, scanning outwards from a
    /// random distance, until `u` is full or the band is exhausted.
    fn fill_around(&mut self, u: usize, band: usize, rng: &mut SplitMix64) {
        if band == 0 {
            return;
        }
        let first = rng.below(band as u64) as usize;
        for t in 0..band.min(8192) {
            if !self.room(u) {
                return;
            }
            let d = 1 + (first + t) % band;
            self.try_link(u, u + d);
            if d <= u && self.room(u) {
                self.try_link(u, u - d);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Power-law rows

/// A pool of `pool` distinct diagonals (the main one first when rows store
/// their diagonal), offsets log-uniform in magnitude; row lengths from a
/// truncated Zipf law with the plan's mean and maximum (one row gets the
/// maximum), adjusted to the exact nnz; each row takes its columns from the
/// pool, nearer diagonals (lower ranks) more often; finally every pool
/// diagonal is made to occur by moving a coupling whose diagonal occurs
/// elsewhere.
pub(crate) fn power_law(p: &PowerLawPlan, seed: u64) -> Vec<u64> {
    let n = p.n;
    let pool_size = p.pool as usize;

    // The pool, by rank (|offset|, then offset).
    let mut rng = SplitMix64::new(seed, stream::POOL);
    let mut taken = vec![false; (2 * n - 1) as usize];
    let mut pool: Vec<i64> = Vec::with_capacity(pool_size);
    if p.diagonal {
        taken[(n - 1) as usize] = true;
        pool.push(0);
    }
    let magnitude = OctaveSampler::new((n - 1).max(1) as u64, 1.0);
    let mut draws = 0usize;
    while pool.len() < pool_size && draws < 64 * pool_size {
        draws += 1;
        let m = magnitude.sample(&mut rng) as i64;
        let o = if rng.next_u64() & 1 == 0 { m } else { -m };
        let slot = (o + n - 1) as usize;
        if !taken[slot] {
            taken[slot] = true;
            pool.push(o);
        }
    }
    if pool.len() < pool_size {
        // Nearly every diagonal is wanted: take the rest in random order.
        let mut rest: Vec<i64> = (-(n - 1)..n)
            .filter(|&o| o != 0 && !taken[(o + n - 1) as usize])
            .collect();
        rng.shuffle(&mut rest);
        pool.extend(rest.into_iter().take(pool_size - pool.len()));
    }
    pool.sort_by_key(|&o| (o.abs(), o));
    let mut by_value = pool.clone();
    by_value.sort_unstable();
    let valid = |i: i64| -> usize {
        // Offsets o with 0 <= i + o < n.
        let lo = by_value.partition_point(|&o| o < -i);
        let hi = by_value.partition_point(|&o| o < n - i);
        hi - lo
    };

    // Row lengths.
    let mut rng = SplitMix64::new(seed, stream::LENGTHS);
    let min_row = p.min_row.min(p.max_row);
    let mean = p.nnz as f64 / n as f64;
    let alpha = zipf_exponent(min_row, p.max_row, mean);
    let mut cumulative = Vec::with_capacity((p.max_row - min_row + 1) as usize);
    let mut acc = 0.0;
    for k in min_row..=p.max_row {
        acc += crate::rng::exp(-alpha * crate::rng::ln(k as f64));
        cumulative.push(acc);
    }
    let cap = |i: i64| -> i64 { (valid(i) as i64).min(p.max_row) };
    let floor_len = |i: i64| -> i64 { min_row.min(cap(i)).max(i64::from(p.diagonal)) };
    let mut lengths: Vec<i64> = (0..n)
        .map(|i| {
            let u = rng.unit() * acc;
            let k = min_row + cumulative.partition_point(|&c| c <= u) as i64;
            k.min(cap(i)).max(floor_len(i))
        })
        .collect();
    // One row of the maximum length.
    let mut longest = n / 2;
    for _ in 0..64 {
        let i = rng.below(n as u64) as i64;
        if cap(i) >= p.max_row {
            longest = i;
            break;
        }
    }
    lengths[longest as usize] = cap(longest);
    let mut total: i64 = lengths.iter().sum();
    let want = p.nnz as i64;
    let budget = 64 * (total - want).unsigned_abs() + 4096;
    let mut tries = 0u64;
    while total != want && tries < budget {
        tries += 1;
        let i = rng.below(n as u64) as i64;
        if i == longest {
            continue;
        }
        let l = &mut lengths[i as usize];
        if total < want && *l < cap(i) {
            *l += 1;
            total += 1;
        } else if total > want && *l > floor_len(i) {
            *l -= 1;
            total -= 1;
        }
    }

    // Columns, as pool ranks.
    let mut start = Vec::with_capacity(n as usize + 1);
    start.push(0usize);
    for &l in &lengths {
        start.push(start.last().copied().unwrap_or(0) + l as usize);
    }
    let mut ranks: Vec<u32> = Vec::with_capacity(total as usize);
    let mut stamp = vec![0u32; pool_size];
    let rank_sampler = OctaveSampler::new(pool_size as u64, 1.0);
    let mut rng = SplitMix64::new(seed, stream::PICKS);
    for i in 0..n {
        let mark = i as u32 + 1;
        let len = lengths[i as usize] as usize;
        let mut have = 0;
        if p.diagonal && len > 0 {
            stamp[0] = mark;
            ranks.push(0);
            have = 1;
        }
        let room = valid(i);
        if len * 2 > room {
            let mut all: Vec<u32> = (0..pool_size as u32)
                .filter(|&r| stamp[r as usize] != mark && (0..n).contains(&(i + pool[r as usize])))
                .collect();
            for t in 0..len - have {
                let j = t + rng.below((all.len() - t) as u64) as usize;
                all.swap(t, j);
                ranks.push(all[t]);
            }
            continue;
        }
        while have < len {
            let r = (rank_sampler.sample(&mut rng) - 1) as usize;
            if stamp[r] == mark || !(0..n).contains(&(i + pool[r])) {
                continue;
            }
            stamp[r] = mark;
            ranks.push(r as u32);
            have += 1;
        }
    }

    // Every pool diagonal at least once.
    let mut usage = vec![0u32; pool_size];
    for &r in &ranks {
        usage[r as usize] += 1;
    }
    let skip = usize::from(p.diagonal);
    let mut rng = SplitMix64::new(seed, stream::COVER);
    // Couplings added (row, rank) and removed (`GONE`) to cover the pool.
    const GONE: u32 = u32::MAX;
    let mut extra: Vec<(i64, u32)> = Vec::new();
    for r in 0..pool_size {
        if usage[r] > 0 {
            continue;
        }
        let o = pool[r];
        let (lo, hi) = ((-o).max(0), (n - o).min(n));
        if lo >= hi {
            continue;
        }
        let span = (hi - lo) as u64;
        let first = rng.below(span);
        // Random rows first, then a scan (far diagonals have few rows).
        let candidates = (0..64)
            .map(|_| rng.below(span))
            .collect::<Vec<_>>()
            .into_iter()
            .chain((0..span.min(1 << 16)).map(|t| (first + t) % span));
        let mut spare = None;
        'rows: for t in candidates {
            let i = lo + t as i64;
            let row = &mut ranks[start[i as usize]..start[i as usize + 1]];
            if row.contains(&(r as u32)) {
                continue;
            }
            spare.get_or_insert(i);
            for slot in row.iter_mut().skip(skip) {
                let old = *slot;
                if old != GONE && usage[old as usize] >= 2 {
                    usage[old as usize] -= 1;
                    *slot = r as u32;
                    usage[r] += 1;
                    break 'rows;
                }
            }
        }
        if usage[r] > 0 {
            continue;
        }
        // No coupling can move: add one here and remove one elsewhere.
        let Some(i) = spare else { continue };
        extra.push((i, r as u32));
        usage[r] += 1;
        for _ in 0..1 << 20 {
            let j = rng.below(n as u64) as i64;
            if j == longest || j == i {
                continue;
            }
            let row = &mut ranks[start[j as usize]..start[j as usize + 1]];
            let alive = row.iter().filter(|&&x| x != GONE).count() as i64;
            if alive <= floor_len(j).max(1) {
                continue;
            }
            let k = skip + rng.below((row.len() - skip).max(1) as u64) as usize;
            if k < row.len() && row[k] != GONE && usage[row[k] as usize] >= 2 {
                usage[row[k] as usize] -= 1;
                row[k] = GONE;
                break;
            }
        }
    }
    extra.sort_unstable();

    let mut keys = Vec::with_capacity(ranks.len());
    let mut cols: Vec<i64> = Vec::new();
    let mut next_extra = 0;
    for i in 0..n {
        cols.clear();
        cols.extend(
            ranks[start[i as usize]..start[i as usize + 1]]
                .iter()
                .filter(|&&r| r != GONE)
                .map(|&r| i + pool[r as usize]),
        );
        while next_extra < extra.len() && extra[next_extra].0 == i {
            cols.push(i + pool[extra[next_extra].1 as usize]);
            next_extra += 1;
        }
        cols.sort_unstable();
        keys.extend(cols.iter().map(|&j| i as u64 * n as u64 + j as u64));
    }
    keys
}

// ---------------------------------------------------------------------------
// Independent coordinates

/// Each mode's index is drawn independently (uniform, or skewed and then
/// scattered by a seeded affine bijection `x ↦ a·x + c mod extent`);
/// duplicates are removed and more drawn until exactly the plan's nnz
/// distinct entries remain, any excess removed at random.
pub(crate) fn random(p: &RandomPlan, seed: u64) -> Vec<u64> {
    let dims = &p.dims;
    let mut rng = SplitMix64::new(seed, stream::MODES);
    let mut modes: Vec<(OctaveSampler, u64, u64, u64)> = Vec::new();
    for (k, &d) in dims.iter().enumerate() {
        let d = d as u64;
        let mut a = 1;
        if d > 2 {
            loop {
                a = 1 + rng.below(d - 1);
                if gcd(a, d) == 1 {
                    break;
                }
            }
        }
        let c = rng.below(d);
        modes.push((OctaveSampler::new(d, p.skew[k]), a, c, d));
    }
    let want = p.nnz as usize;
    let mut keys: Vec<u64> = Vec::with_capacity(want + want / 16 + 16);
    let mut skewed = true;
    let mut rounds = 0;
    while keys.len() < want {
        rounds += 1;
        let need = want - keys.len();
        let before = keys.len();
        for _ in 0..need + need / 32 + 16 {
            let mut key = 0u64;
            for (sampler, a, c, d) in &modes {
                let x = if skewed {
                    sampler.sample(&mut rng) - 1
                } else {
                    rng.below(*d)
                };
                let idx =
                    ((u128::from(*a) * u128::from(x) + u128::from(*c)) % u128::from(*d)) as u64;
                key = key * d + idx;
            }
            keys.push(key);
        }
        keys.sort_unstable();
        keys.dedup();
        // A saturated head: finish with uniform draws, which always progress.
        if rounds >= 32 || keys.len() - before.min(keys.len()) < need / 64 {
            skewed = false;
        }
    }
    if keys.len() > want {
        let mut rng = SplitMix64::new(seed, stream::TRIM);
        let mut gone = vec![false; keys.len()];
        let mut removed = 0;
        while removed < keys.len() - want {
            let k = rng.below(keys.len() as u64) as usize;
            if !gone[k] {
                gone[k] = true;
                removed += 1;
            }
        }
        let mut k = 0;
        keys.retain(|_| {
            k += 1;
            !gone[k - 1]
        });
    }
    keys
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
