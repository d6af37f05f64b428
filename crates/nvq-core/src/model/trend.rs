//! Is a series rising steadily (a leak), how fast, and when will it reach a
//! capacity (memory full)? Pure computation over a [`Series`].
//!
//! The method (`docs/trends.md` says it for users):
//! 1. The **window** is the last `window_s` seconds of the series (less at
//!    the start of a run). It is cut into [`SEGMENTS`] equal slices of time,
//!    and each slice gives its **floor**: its lowest point. Floors ignore
//!    what a caching allocator takes and gives back within a slice (the
//!    teeth of a sawtooth) and keep what is never given back.
//! 2. The **rate** is the Theil–Sen slope of the floors: the median of the
//!    slopes between every pair of them. One odd slice cannot move it.
//! 3. The series is **rising steadily** when all of these hold: the rate is
//!    positive; the newest floor is at least `min_rise` above the oldest, and
//!    at least half of what the rate predicts over the window (a sawtooth
//!    whose teeth are longer than a slice rises within a tooth, then falls
//!    back); each third of the window rises by at least a quarter of what the
//!    rate predicts for it (a one-time jump followed by a plateau rises in one
//!    third only); and the floors have been rising, slice after slice with at
//!    most one flat slice in a row and no fall, for at least
//!    `min_duration_s` (this run may reach back beyond the window).
//! 4. The **time to full** is, when rising, the capacity minus the newest
//!    value, divided by the rate.

use super::history::{Point, Series};
use super::{ColumnId, Fact, ListField};

/// The fields that fill up, and the fact each fills: time to full is measured against it.
pub const CAPACITY: &[(ColumnId, Fact)] = &[
    (ColumnId::Fact(Fact::MemoryUsed), Fact::MemoryTotal),
    (ColumnId::Fact(Fact::MemoryReserved), Fact::MemoryTotal),
    (ColumnId::List(ListField::UsedGpuMemory), Fact::MemoryTotal),
    // `used_gpu_memory`'s other spelling, as a log written with it names it.
    (ColumnId::Text("used_memory"), Fact::MemoryTotal),
    (
        ColumnId::Fact(Fact::ProtectedMemoryUsed),
        Fact::ProtectedMemoryTotal,
    ),
    // dmon's and pmon's frame buffer column (the GPU's, a process's memory).
    (ColumnId::Text("fb"), Fact::MemoryTotal),
];

/// The fact that column `id` fills (`memory.total` for `memory.used`), if any.
pub fn capacity(id: ColumnId) -> Option<Fact> {
    CAPACITY.iter().find(|(f, _)| *f == id).map(|(_, c)| *c)
}

/// The name of the field that the field named `field` fills, if any (for
/// logs and histories, which name their columns).
pub fn capacity_field(field: &str) -> Option<&'static str> {
    CAPACITY
        .iter()
        .find(|(f, _)| f.name() == field)
        .map(|(_, c)| c.name())
}

/// A duration as nvq shows a time to full: `45s`, `12m 30s`, `3h 05m`, `2d 04h`; `never` when infinite.
pub fn format_duration(s: f64) -> String {
    if !s.is_finite() {
        return "never".into();
    }
    let s = s.max(0.0).round() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        3600..=86_399 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {:02}h", s / 86_400, s % 86_400 / 3600),
    }
}

/// How many slices of time the window is cut into.
pub const SEGMENTS: usize = 12;

/// What "rising steadily" takes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrendConfig {
    /// The sliding window the rate is measured over, in seconds.
    pub window_s: f64,
    /// How long a series must have been rising to read as rising steadily, in seconds.
    pub min_duration_s: f64,
    /// The least rise over the window that counts, in the field's base unit (bytes for memory).
    pub min_rise: f64,
}

impl TrendConfig {
    /// Ten minutes.
    pub const DEFAULT_WINDOW_S: f64 = 600.0;
    /// Five minutes.
    pub const DEFAULT_MIN_DURATION_S: f64 = 300.0;
    /// 256 MiB.
    pub const DEFAULT_MIN_RISE: f64 = 256.0 * 1024.0 * 1024.0;
}

impl Default for TrendConfig {
    /// A ten-minute window, rising for five minutes, by at least 256 MiB.
    fn default() -> Self {
        TrendConfig {
            window_s: Self::DEFAULT_WINDOW_S,
            min_duration_s: Self::DEFAULT_MIN_DURATION_S,
            min_rise: Self::DEFAULT_MIN_RISE,
        }
    }
}

/// What the trend of a series is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trend {
    /// Robust slope over the window (base unit per second).
    pub slope_per_s: f64,
    /// "Rising steadily": a leak, not a sawtooth, a warm-up jump or a plateau.
    pub rising: bool,
    /// How long it has been rising steadily (0 when it is not).
    pub rising_for_s: f64,
    /// At the current rate, until `capacity` (None when not rising or no capacity).
    pub time_to_full_s: Option<f64>,
}

/// The trend of `series`; None: too few points (fewer than three, or fewer than three slices with a point).
pub fn trend(series: &Series, capacity: Option<f64>, cfg: &TrendConfig) -> Option<Trend> {
    trend_with_line(series, capacity, cfg).map(|(t, _)| t)
}

/// [`trend`] when the series is rising steadily, else None: for a loop that marks only the rising series (`nvq
/// top`'s leak marks) among many that are not. Like [`time_to_full`], it reads the floors only as far back as their
/// run of rising goes, and fits a rate only when the run is long enough and the window's floors rose enough.
pub fn rising_trend(series: &Series, capacity: Option<f64>, cfg: &TrendConfig) -> Option<Trend> {
    if let (true, Some((last, seg))) = (series.in_order(), slicing(series, cfg)) {
        let run = rising_run(Groups::new(series, last.t, seg).map(|f| f.1), last.t);
        // (NaN settings included: a run not known to be long enough is not.)
        let long_enough = run >= cfg.min_duration_s;
        if !long_enough {
            return None;
        }
    }
    let w = window(series, cfg)?;
    if !may_rise(&w, cfg) {
        return None;
    }
    fitted(&w, capacity, cfg)
        .map(|(t, _)| t)
        .filter(|t| t.rising)
}

/// [`trend`], and the straight line the rate was fitted as, for drawing: through the window's newest floor, from
/// the time of its oldest floor to the newest point.
pub fn trend_with_line(
    series: &Series,
    capacity: Option<f64>,
    cfg: &TrendConfig,
) -> Option<(Trend, (Point, Point))> {
    fitted(&window(series, cfg)?, capacity, cfg)
}

/// The time to full of [`trend`]: None with too few points, `Some(None)` when not rising steadily. The rate is
/// computed only when the series may be rising (its floors rose by `min_rise` over the window and have risen
/// for `min_duration_s`): a loop asks this of every series every sample, and most are not rising.
pub fn time_to_full(
    series: &Series,
    capacity: Option<f64>,
    cfg: &TrendConfig,
) -> Option<Option<f64>> {
    if let (true, Some((last, seg))) = (series.in_order(), slicing(series, cfg)) {
        // The run first, which reads the floors only as far back as it goes (two or three slices of a flat or
        // noisy series): too short a run is not rising whatever the rise, and then only whether the window has
        // three floors (a trend) is left to find. Floors in time order are at different times: a rate exists.
        let mut groups = Groups::new(series, last.t, seg);
        let mut seen = 0;
        let run = rising_run(
            groups
                .by_ref()
                .inspect(|f| seen += usize::from(f.0 < SEGMENTS))
                .map(|f| f.1),
            last.t,
        );
        // (NaN settings included: a run not known to be long enough is not.)
        let long_enough = run >= cfg.min_duration_s;
        if !long_enough {
            let more = groups
                .take_while(|f| f.0 < SEGMENTS)
                .take(3usize.saturating_sub(seen))
                .count();
            return (seen + more >= 3).then_some(None);
        }
    }
    let w = window(series, cfg)?;
    if !may_rise(&w, cfg) {
        let win = w.floors();
        // Not rising; a trend exists when a rate does (two floors at different times, see `theil_sen`).
        let firsts = &win[..win.len().min(SEGMENTS)];
        let mut earliest = f64::INFINITY;
        let has_rate = firsts.iter().any(|p| {
            let later = p.t > earliest;
            earliest = earliest.min(p.t);
            later
        });
        return has_rate.then_some(None);
    }
    fitted(&w, capacity, cfg).map(|(t, _)| t.time_to_full_s)
}

/// A series' window: its floors (oldest first) and how long the floors have been rising.
struct Window {
    last: Point,
    near: [Point; SEGMENTS],
    n: usize,
    /// The window's floors when the series is out of time order (else empty, and `near` holds them).
    every: Option<Vec<Point>>,
    run: f64,
}

impl Window {
    fn floors(&self) -> &[Point] {
        match &self.every {
            Some(e) => e,
            None => self.near.get(..self.n).unwrap_or(&[]),
        }
    }
}

/// The newest point of `series` and the length of its window's slices; None: fewer than three points, or a
/// window of no time.
fn slicing(series: &Series, cfg: &TrendConfig) -> Option<(Point, f64)> {
    let last = series.last()?;
    if series.len() < 3 {
        return None;
    }
    let window = if cfg.window_s.is_finite() && cfg.window_s > 0.0 {
        cfg.window_s
    } else {
        TrendConfig::DEFAULT_WINDOW_S
    };
    let oldest_in_window = if series.in_order() {
        // Times only grow: the points out of the window are a run of the oldest, found by a binary search.
        series.get(series.partition_point(|p| last.t - p.t > window))
    } else {
        series
            .points()
            .rev()
            .take_while(|p| last.t - p.t <= window)
            .last()
    }
    .unwrap_or(last);
    let span = last.t - oldest_in_window.t;
    if span <= 0.0 {
        return None;
    }
    Some((last, span / SEGMENTS as f64))
}

/// The window of `series`; None: too few points (fewer than three, or fewer than three slices with a point).
fn window(series: &Series, cfg: &TrendConfig) -> Option<Window> {
    let (last, seg) = slicing(series, cfg)?;
    // In time order (the usual case) the window's floors come first, newest first, and the floors are read only
    // as far back as the run of rising goes; otherwise every point is read.
    let mut w = Window {
        last,
        near: [Point { t: 0.0, v: 0.0 }; SEGMENTS],
        n: 0,
        every: None,
        run: 0.0,
    };
    if series.in_order() {
        let mut floors = Groups::new(series, last.t, seg);
        let mut beyond = None;
        for (k, p) in floors.by_ref() {
            match w.near.get_mut(w.n) {
                Some(slot) if k < SEGMENTS => {
                    *slot = p;
                    w.n += 1;
                }
                _ => {
                    beyond = Some(p);
                    break;
                }
            }
        }
        let older = beyond.into_iter().chain(floors.map(|f| f.1));
        let near = w.near.get(..w.n).unwrap_or(&[]);
        w.run = rising_run(near.iter().copied().chain(older), last.t);
        w.near[..w.n].reverse();
    } else {
        let all: Vec<(usize, Point)> = Floors::new(series, last.t, seg).collect();
        w.every = Some(
            all.iter()
                .rev()
                .filter(|f| f.0 < SEGMENTS)
                .map(|f| f.1)
                .collect(),
        );
        w.run = rising_run(all.iter().map(|f| f.1), last.t);
    }
    (w.floors().len() >= 3).then_some(w)
}

/// Whether a window's floors rose enough, for long enough, to be rising steadily (what [`fitted`] asks besides
/// the rate): a window that fails it is not rising, without fitting a rate.
fn may_rise(w: &Window, cfg: &TrendConfig) -> bool {
    let win = w.floors();
    let net = win[win.len() - 1].v - win[0].v;
    net >= cfg.min_rise && w.run >= cfg.min_duration_s
}

/// The rate of a window and what follows from it.
fn fitted(w: &Window, capacity: Option<f64>, cfg: &TrendConfig) -> Option<(Trend, (Point, Point))> {
    let (win, last, run) = (w.floors(), w.last, w.run);
    let slope = theil_sen(win)?;
    let (first, newest) = (win[0], win[win.len() - 1]);
    let net = newest.v - first.v;
    let predicted = slope * (newest.t - first.t);
    let thirds_rise = win.len() >= 6 && {
        let n = win.len();
        [0..n / 3, n / 3..2 * n / 3, 2 * n / 3..n]
            .into_iter()
            .all(|r| {
                let g = &win[r];
                let (a, b) = (g[0], g[g.len() - 1]);
                b.v - a.v >= 0.25 * slope * (b.t - a.t) && b.v > a.v
            })
    };
    let rising = slope > 0.0
        && net >= cfg.min_rise
        && net >= 0.5 * predicted
        && thirds_rise
        && run >= cfg.min_duration_s;
    let time_to_full_s = match capacity {
        Some(c) if rising && c.is_finite() => Some(((c - last.v) / slope).max(0.0)),
        _ => None,
    };
    // The fitted line through the newest floor, from the oldest floor of the window to the newest point.
    let at = |t: f64| Point {
        t,
        v: newest.v + slope * (t - newest.t),
    };
    let tr = Trend {
        slope_per_s: slope,
        rising,
        rising_for_s: if rising { run } else { 0.0 },
        time_to_full_s,
    };
    Some((tr, (at(first.t), at(last.t))))
}

/// The floors of the whole series in slices of `seg` seconds counted back from `newest`, newest slice first:
/// (slice number, 0 the newest; the slice's lowest point, the oldest of equal ones). Points in a row that fall in
/// one slice make one floor.
struct Floors<I: Iterator<Item = Point>> {
    /// The points not read yet, newest first.
    points: I,
    /// The first point of the next slice, and its slice, read ahead.
    next: Option<(usize, Point)>,
    newest: f64,
    seg: f64,
}

impl Floors<std::iter::Empty<Point>> {
    fn new(series: &Series, newest: f64, seg: f64) -> Floors<impl Iterator<Item = Point> + '_> {
        Floors {
            points: series.points().rev(),
            next: None,
            newest,
            seg,
        }
    }
}

/// The slice (0 the newest) a point at `t` falls in.
fn slice_of(t: f64, newest: f64, seg: f64) -> usize {
    let back = ((newest - t) / seg).max(0.0);
    // The window's oldest point falls on the boundary: it belongs to the window's last slice.
    if back >= SEGMENTS as f64 && back - SEGMENTS as f64 <= 1e-9 {
        SEGMENTS - 1
    } else {
        back as usize
    }
}

/// The floors of a series in time order, as [`Floors`] gives them, without reading every point: the points of
/// one slice are a run (slices only grow back in time), so each slice's oldest point is found by a search from
/// where the slice's length guesses it (the slice before's, or the window's average spacing at first: a loop
/// samples at a steady pace) and its lowest by [`Series::lowest_in`] (which reads whole blocks as their minimum
/// when the series keeps them).
struct Groups<'a> {
    series: &'a Series,
    /// The points not read yet are those before this index.
    end: usize,
    newest: f64,
    seg: f64,
    /// How many points the next slice is guessed to hold (0: no guess).
    width: usize,
}

impl<'a> Groups<'a> {
    fn new(series: &'a Series, newest: f64, seg: f64) -> Self {
        let spacing = match (series.first(), series.last()) {
            (Some(a), Some(b)) if series.len() > 1 => (b.t - a.t) / (series.len() - 1) as f64,
            _ => 0.0,
        };
        let width = seg / spacing;
        Groups {
            series,
            end: series.len(),
            newest,
            seg,
            width: if width.is_finite() && width >= 1.0 {
                width.round() as usize
            } else {
                0
            },
        }
    }
}

impl Iterator for Groups<'_> {
    type Item = (usize, Point);

    fn next(&mut self) -> Option<(usize, Point)> {
        let (series, newest, seg) = (self.series, self.newest, self.seg);
        let newest_left = self.end.checked_sub(1)?;
        let k = slice_of(series.get(newest_left)?.t, newest, seg);
        let older = |i: usize| {
            series
                .get(i)
                .is_some_and(|p| slice_of(p.t, newest, seg) > k)
        };
        // The slice's oldest point is the first of `lo..=hi` that is not older (`hi` is not). From the guess, steps
        // that double, away from it, until the slice's edge is passed; then a binary search between.
        let (mut lo, mut hi) = (0, newest_left);
        let guess = match self.width {
            w if w >= 1 && w <= newest_left => newest_left + 1 - w,
            _ => newest_left,
        };
        let mut step = 1;
        if older(guess) {
            lo = guess + 1;
            while let Some(i) = guess.checked_add(step).filter(|&i| i < hi) {
                if !older(i) {
                    hi = i;
                    break;
                }
                lo = i + 1;
                step *= 2;
            }
        } else {
            hi = guess;
            while let Some(i) = guess.checked_sub(step) {
                if older(i) {
                    lo = i + 1;
                    break;
                }
                hi = i;
                step *= 2;
            }
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if older(mid) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let low = series.lowest_in(lo, self.end)?;
        self.width = self.end - lo;
        self.end = lo;
        Some((k, series.get(low)?))
    }
}

impl<I: Iterator<Item = Point>> Iterator for Floors<I> {
    type Item = (usize, Point);

    fn next(&mut self) -> Option<(usize, Point)> {
        let (newest, seg) = (self.newest, self.seg);
        let (k, mut floor) = match self.next.take() {
            Some(ahead) => ahead,
            None => {
                let p = self.points.next()?;
                (slice_of(p.t, newest, seg), p)
            }
        };
        for p in self.points.by_ref() {
            let kp = slice_of(p.t, newest, seg);
            if kp != k {
                self.next = Some((kp, p));
                break;
            }
            if p.v <= floor.v {
                floor = p;
            }
        }
        Some((k, floor))
    }
}

/// How long the floors (newest first) have been rising, counted back from the newest: slice after slice (empty
/// slices passed over), each floor above the one before it, at most one flat slice in a row, no fall. Reads
/// the floors only as far as the run goes.
fn rising_run(mut floors: impl Iterator<Item = Point>, newest: f64) -> f64 {
    let Some(mut later) = floors.next() else {
        return 0.0;
    };
    let mut start = later.t;
    let mut flats = 0;
    let mut rose = false;
    for earlier in floors {
        // Slices without a point (sampling coarser than a slice, or a stalled loop) are passed over: the floors
        // on either side are compared.
        if earlier.v < later.v {
            flats = 0;
            rose = true;
            start = earlier.t;
        } else if earlier.v == later.v && flats == 0 {
            flats += 1;
        } else {
            break;
        }
        later = earlier;
    }
    if rose {
        newest - start
    } else {
        0.0
    }
}

/// The median of the slopes between every pair of points whose later one (in the order given) has the later
/// time. The points are a window's floors, of which the first [`SEGMENTS`] are read (more only after a clock
/// stepped back, `docs/trends.md`), so the slopes fit on the stack: no allocation per sample.
fn theil_sen(points: &[Point]) -> Option<f64> {
    let points = &points[..points.len().min(SEGMENTS)];
    let mut slopes = [0.0f64; SEGMENTS * (SEGMENTS - 1) / 2];
    let mut n = 0;
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            let dt = b.t - a.t;
            if let (true, Some(s)) = (dt > 0.0, slopes.get_mut(n)) {
                *s = (b.v - a.v) / dt;
                n += 1;
            }
        }
    }
    median(slopes.get_mut(..n)?)
}

fn median(xs: &mut [f64]) -> Option<f64> {
    if xs.is_empty() {
        return None;
    }
    // The middle one (and for an even count the greatest below it), as a sort would put them, without sorting.
    let n = xs.len();
    let (below, &mut mid, _) = xs.select_nth_unstable_by(n / 2, f64::total_cmp);
    Some(if n % 2 == 1 {
        mid
    } else {
        let under = below.iter().copied().max_by(f64::total_cmp).unwrap_or(mid);
        (under + mid) / 2.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
    const MIB: f64 = 1024.0 * 1024.0;

    fn series(n: usize, dt: f64, f: impl Fn(f64) -> f64) -> Series {
        let mut s = Series::with_cap(n);
        for i in 0..n {
            let t = 1_700_000_000.0 + i as f64 * dt;
            s.push(Point {
                t,
                v: f(i as f64 * dt),
            });
        }
        s
    }

    /// The trend of `s` with the default settings, on an 80 GiB GPU.
    fn on_80_gib(s: &Series) -> Trend {
        trend(s, Some(80.0 * GIB), &TrendConfig::default()).unwrap()
    }

    /// A little deterministic noise in [-1, 1].
    fn noise(t: f64) -> f64 {
        ((t * 12.9898).sin() * 43758.5453).fract()
    }

    #[test]
    fn a_steady_leak_rises_at_its_rate_and_says_when_memory_is_full() {
        // 1 GiB a minute from 2 GiB, 15 minutes at 1 s, on an 80 GiB GPU, with 20 MiB of noise.
        let s = series(900, 1.0, |t| {
            2.0 * GIB + t * GIB / 60.0 + 20.0 * MIB * noise(t)
        });
        let tr = on_80_gib(&s);
        assert!(tr.rising);
        let rate = tr.slope_per_s * 60.0 / GIB;
        assert!((rate - 1.0).abs() < 0.02, "{rate} GiB/min");
        // Used at the end: 2 + 899/60 ≈ 17 GiB; 63 GiB to go at 1 GiB/min ≈ 63 min.
        let ttf = tr.time_to_full_s.unwrap() / 60.0;
        assert!((ttf - 63.0).abs() < 1.5, "{ttf} min");
        assert!(tr.rising_for_s >= 600.0 - 60.0, "{}", tr.rising_for_s);
    }

    #[test]
    fn a_caching_allocators_sawtooth_is_not_a_leak() {
        // Rises 4 GiB over a tooth, then gives it all back; teeth of 10 s to 200 s (a third of the window),
        // the run ending at every phase of a tooth. (A tooth as long as the window is a leak while it lasts.)
        for period in [10.0, 50.0, 120.0, 200.0] {
            for n in (1800..2000).step_by(7) {
                let s = series(n, 1.0, |t| {
                    10.0 * GIB + 4.0 * GIB * ((t % period) / period) + MIB * noise(t)
                });
                let tr = on_80_gib(&s);
                assert!(!tr.rising, "period {period}, {n} s: {tr:?}");
                assert_eq!(tr.time_to_full_s, None);
            }
        }
    }

    #[test]
    fn a_warm_up_jump_then_a_plateau_is_not_a_leak() {
        // Flat at 1 GiB, a jump to 30 GiB (a model loaded) at each place in the window, then flat.
        for jump_at in [30.0, 200.0, 400.0, 550.0, 590.0] {
            let s = series(
                600,
                1.0,
                |t| if t < jump_at { GIB } else { 30.0 * GIB } + MIB * noise(t),
            );
            let tr = on_80_gib(&s);
            assert!(!tr.rising, "jump at {jump_at}: {tr:?}");
        }
        // And a warm-up ramp over the first two minutes, then a plateau for ten.
        let s = series(720, 1.0, |t| (t.min(120.0) / 120.0) * 20.0 * GIB);
        assert!(!on_80_gib(&s).rising);
    }

    #[test]
    fn a_plateau_and_a_small_rise_are_not_leaks() {
        let flat = series(900, 1.0, |t| 40.0 * GIB + 50.0 * MIB * noise(t));
        let tr = on_80_gib(&flat);
        assert!(!tr.rising);
        assert!(
            tr.slope_per_s.abs() * 60.0 < 20.0 * MIB,
            "{}",
            tr.slope_per_s
        );
        // 100 MiB over the window: under the minimum rise.
        let small = series(600, 1.0, |t| 40.0 * GIB + t * 100.0 * MIB / 600.0);
        assert!(!on_80_gib(&small).rising);
    }

    #[test]
    fn a_leak_must_last_the_minimum_duration() {
        // Rising for two minutes only (after eight flat ones).
        let s = series(600, 1.0, |t| 10.0 * GIB + (t - 480.0).max(0.0) * GIB / 60.0);
        let tr = on_80_gib(&s);
        assert!(!tr.rising, "{tr:?}");
        // With a short minimum duration, a short window sees it.
        let cfg = TrendConfig {
            window_s: 120.0,
            min_duration_s: 60.0,
            ..TrendConfig::default()
        };
        assert!(trend(&s, Some(80.0 * GIB), &cfg).unwrap().rising);
    }

    #[test]
    fn a_leak_under_a_sawtooth_is_still_a_leak() {
        let s = series(900, 1.0, |t| {
            5.0 * GIB + t * GIB / 120.0 + 3.0 * GIB * ((t % 20.0) / 20.0)
        });
        let tr = on_80_gib(&s);
        assert!(tr.rising, "{tr:?}");
        let rate = tr.slope_per_s * 120.0 / GIB;
        assert!((rate - 1.0).abs() < 0.05, "{rate}");
    }

    #[test]
    fn too_few_points_give_no_trend_and_a_full_gpu_has_no_time_left() {
        assert!(trend(&series(2, 1.0, |t| t), None, &TrendConfig::default()).is_none());
        let same_time = series(5, 0.0, |_| 1.0);
        assert!(trend(&same_time, None, &TrendConfig::default()).is_none());
        let s = series(900, 1.0, |t| t * GIB / 60.0);
        let tr = trend(&s, Some(10.0 * GIB), &TrendConfig::default()).unwrap();
        assert_eq!(tr.time_to_full_s, Some(0.0));
        assert!(trend(&s, None, &TrendConfig::default())
            .unwrap()
            .time_to_full_s
            .is_none());
    }

    #[test]
    fn a_short_series_gets_a_rate_but_is_not_yet_rising() {
        let s = series(30, 0.1, |t| t * GIB / 60.0);
        let tr = on_80_gib(&s);
        assert!((tr.slope_per_s * 60.0 / GIB - 1.0).abs() < 0.01);
        assert!(!tr.rising);
    }

    /// The trend computed from its definition (the module's doc comment, `docs/trends.md`), written apart from the
    /// code it checks: every point read, each slice's floors gathered in a `Vec`, every pair's slope collected and
    /// sorted. What the reading that stops early (floors read newest first, only as far as needed, slopes on the
    /// stack) must equal, point for point.
    mod plain {
        use super::super::{Point, Series, Trend, TrendConfig, SEGMENTS};
        use std::cmp::Ordering;

        pub fn trend_with_line(
            series: &Series,
            capacity: Option<f64>,
            cfg: &TrendConfig,
        ) -> Option<(Trend, (Point, Point))> {
            let points: Vec<Point> = series.points().collect();
            let &last = points.last()?;
            if points.len() < 3 {
                return None;
            }
            let window_s = Some(cfg.window_s)
                .filter(|w| w.is_finite() && *w > 0.0)
                .unwrap_or(TrendConfig::DEFAULT_WINDOW_S);
            // Back from the newest point, the points no more than `window_s` before it, up to the first older one.
            let in_window = points
                .iter()
                .rev()
                .take_while(|p| last.t - p.t <= window_s)
                .count();
            let span = last.t - points[points.len() - in_window].t;
            if span <= 0.0 {
                return None;
            }
            let slice_s = span / SEGMENTS as f64;
            // Slice k (0 the newest) is k to k + 1 slices before the newest point; a point after it is in slice 0,
            // and the window's oldest point, on the far boundary, is in the last slice.
            let slice = |p: &Point| {
                let back = (last.t - p.t) / slice_s;
                let on_far_boundary = back >= SEGMENTS as f64 && back - SEGMENTS as f64 <= 1e-9;
                if on_far_boundary {
                    SEGMENTS - 1
                } else {
                    back.max(0.0).floor() as usize
                }
            };
            // Points in a row in one slice give one floor: the lowest of them, the oldest of equal ones.
            let floors: Vec<(usize, Point)> = points
                .chunk_by(|a, b| slice(a) == slice(b))
                .map(|run| {
                    let lowest = run
                        .iter()
                        .fold(run[0], |low, p| if p.v < low.v { *p } else { low });
                    (slice(&run[0]), lowest)
                })
                .collect();
            let win: Vec<Point> = floors
                .iter()
                .filter(|f| f.0 < SEGMENTS)
                .map(|f| f.1)
                .collect();
            if win.len() < 3 {
                return None;
            }
            let newest_first: Vec<Point> = floors.iter().rev().map(|f| f.1).collect();
            let run = rising_for(&newest_first, last.t);
            // The rate is fitted to the oldest twelve floors: more are in the window only when a clock stepped
            // back, splitting a slice into runs.
            let slope = median_pair_slope(&win[..win.len().min(SEGMENTS)])?;

            // How much the floors rose from the first of `g` to its last, and how much the rate says they should.
            let rise = |g: &[Point]| g[g.len() - 1].v - g[0].v;
            let predicted = |g: &[Point]| slope * (g[g.len() - 1].t - g[0].t);
            let n = win.len();
            let thirds = [&win[..n / 3], &win[n / 3..2 * n / 3], &win[2 * n / 3..]];
            let each_third_rises = n >= 6
                && thirds
                    .iter()
                    .all(|g| rise(g) > 0.0 && rise(g) >= predicted(g) / 4.0);
            let rising = slope > 0.0
                && rise(&win) >= cfg.min_rise
                && rise(&win) >= predicted(&win) / 2.0
                && each_third_rises
                && run >= cfg.min_duration_s;
            // How long it has been rising and when it will be full mean something only when it is rising.
            let (rising_for_s, time_to_full_s) = if rising {
                let to_full = |c: f64| ((c - last.v) / slope).max(0.0);
                (run, capacity.filter(|c| c.is_finite()).map(to_full))
            } else {
                (0.0, None)
            };
            let trend = Trend {
                slope_per_s: slope,
                rising,
                rising_for_s,
                time_to_full_s,
            };
            // The fitted line: through the newest floor at the rate, from the oldest floor's time to the newest one's.
            let newest_floor = win[n - 1];
            let on_line = |t: f64| Point {
                t,
                v: newest_floor.v + slope * (t - newest_floor.t),
            };
            Some((trend, (on_line(win[0].t), on_line(last.t))))
        }

        /// How long the floors (newest first) have been rising: back from the newest, each step to the floor
        /// before is a rise (that floor lower), a flat or a fall. The run ends at the first fall or the second flat
        /// in a row, and starts at the floor the last rise before that reached; none: 0.
        fn rising_for(floors: &[Point], newest: f64) -> f64 {
            let step = |i: usize| floors[i + 1].v.partial_cmp(&floors[i].v);
            let steps = floors.len().saturating_sub(1);
            let ends = (0..steps)
                .find(|&i| match step(i) {
                    Some(Ordering::Less) => false,
                    Some(Ordering::Equal) => i > 0 && step(i - 1) == Some(Ordering::Equal),
                    _ => true,
                })
                .unwrap_or(steps);
            (0..ends)
                .rev()
                .find(|&i| step(i) == Some(Ordering::Less))
                .map_or(0.0, |i| newest - floors[i + 1].t)
        }

        /// Theil–Sen: the slope of every pair of points whose later one (in the window's order) is later in time
        /// (any pair at distinct times, unless a clock stepped back), sorted; the middle one, or the mean of the
        /// middle two. None: no such pair.
        fn median_pair_slope(points: &[Point]) -> Option<f64> {
            let mut slopes = Vec::new();
            for (i, a) in points.iter().enumerate() {
                for b in &points[i + 1..] {
                    if b.t > a.t {
                        slopes.push((b.v - a.v) / (b.t - a.t));
                    }
                }
            }
            slopes.sort_by(f64::total_cmp);
            let n = slopes.len();
            match n {
                0 => None,
                _ if n % 2 == 1 => Some(slopes[n / 2]),
                _ => Some((slopes[n / 2 - 1] + slopes[n / 2]) / 2.0),
            }
        }
    }

    /// Three points in two slices (two of them in the window's oldest twelfth): no trend, and no time to full,
    /// whether the run is read first (a run too short) or the whole window is (a run long enough).
    #[test]
    fn two_floors_are_no_trend_on_either_path() {
        for min_duration_s in [1e9, 0.0] {
            let cfg = TrendConfig {
                window_s: 600.0,
                min_duration_s,
                min_rise: 0.0,
            };
            for keep in [false, true] {
                let mut s = Series::with_cap(10);
                if keep {
                    s.keep_minima();
                }
                for (t, v) in [(0.0, 1.0), (0.5, 2.0), (12.0, 3.0)] {
                    s.push(Point { t, v });
                }
                assert_eq!(trend(&s, Some(10.0), &cfg), None);
                assert_eq!(
                    time_to_full(&s, Some(10.0), &cfg),
                    None,
                    "{min_duration_s} {keep}"
                );
                s.push(Point { t: 24.0, v: 4.0 });
                assert!(
                    time_to_full(&s, Some(10.0), &cfg).is_some(),
                    "three floors now"
                );
            }
        }
    }

    /// Series of every shape the loops see (leaks, sawtooths, jumps, plateaus, noise, a clock stepped back,
    /// sampling coarser than a slice, rings that dropped their oldest points), each trend read after every point:
    /// the early-stopping reading gives the very trend and line the plain one does.
    #[test]
    fn the_trend_equals_the_plain_computation() {
        let cfgs = [
            TrendConfig::default(),
            TrendConfig {
                window_s: 30.0,
                min_duration_s: 10.0,
                min_rise: 0.0,
            },
        ];
        let shapes: [&dyn Fn(f64) -> f64; 6] = [
            &|t| 2.0 * GIB + t * GIB / 60.0 + 20.0 * MIB * noise(t),
            &|t| 10.0 * GIB + 4.0 * GIB * ((t % 50.0) / 50.0),
            &|t| if t < 200.0 { GIB } else { 30.0 * GIB },
            &|t| 40.0 * GIB + 50.0 * MIB * noise(t),
            &|t| 5.0 * GIB + t * GIB / 120.0 + 3.0 * GIB * ((t % 20.0) / 20.0),
            &|t| (t / 7.0).floor() * MIB,
        ];
        let mut checked = 0;
        for (i, shape) in shapes.iter().enumerate() {
            for (dt, cap) in [(1.0, 2000), (0.1, 300), (45.0, 200), (1.0, 240)] {
                let mut s = Series::with_cap(cap);
                // The same series keeping block minima (as the loops' series of rate() and time_to_full() do).
                let mut kept = Series::with_cap(cap);
                kept.keep_minima();
                for n in 0..600 {
                    // Shape 3 (noise) has its clock step back a minute now and then.
                    let step_back = if i == 3 && n % 400 > 380 { 60.0 } else { 0.0 };
                    let t = 1_700_000_000.0 + n as f64 * dt - step_back;
                    let p = Point {
                        t,
                        v: shape(n as f64 * dt),
                    };
                    s.push(p);
                    kept.push(p);
                    if n % 6 != 0 {
                        continue;
                    }
                    for cfg in &cfgs {
                        let cap = Some(80.0 * GIB);
                        let plain = plain::trend_with_line(&s, cap, cfg);
                        for series in [&s, &kept] {
                            assert_eq!(
                                trend_with_line(series, cap, cfg),
                                plain,
                                "shape {i}, every {dt} s, {n} points"
                            );
                            assert_eq!(
                                time_to_full(series, cap, cfg),
                                plain.map(|(t, _)| t.time_to_full_s),
                                "shape {i}, every {dt} s, {n} points"
                            );
                            assert_eq!(
                                rising_trend(series, cap, cfg),
                                plain.map(|(t, _)| t).filter(|t| t.rising),
                                "shape {i}, every {dt} s, {n} points"
                            );
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 3_000);
    }
}
