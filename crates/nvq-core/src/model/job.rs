//! `nvq run`'s data: what one sample saw of each GPU ([`GpuReading`]), and
//! what the run has seen so far ([`JobTrack`]): per GPU the job's peak and
//! when, the GPU's total then, the other processes then, the job's mean;
//! per process its peak; the job's memory over the run as bounded floors
//! ([`Floors`], what the leak verdict reads) and the last seconds of samples
//! ([`Recent`], what the out-of-memory verdict and the bundle read). Pure:
//! the sampler feeds it, the verdicts (`model::job_verdict`) and the
//! renderer read it.

use super::history::Point;
use super::job_verdict::{self, FullGpu, Leak, Oom, OtherProc, ProcName, OOM_LAST_MS};
use super::trend::TrendConfig;
use serde::Serialize;
use std::collections::{BTreeMap, VecDeque};

/// One GPU in one sample: its memory and its compute processes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuReading {
    /// NVML's index.
    pub index: u32,
    /// Bytes of memory in all.
    pub total: u64,
    /// Bytes in use, by anyone.
    pub used: u64,
    /// The compute processes: (PID in nvq's namespace, or NVML's when it
    /// cannot be mapped; bytes; is it the job's).
    pub procs: Vec<ProcReading>,
    /// Accounting mode's most per process of the job (PID, bytes), when
    /// the GPU's accounting mode is on; `None` when it is off or unknown.
    pub accounting: Option<Vec<(u32, u64)>>,
    /// Are `total` and `used` the system's memory, which a unified-memory
    /// GPU shares (`memory.derived`)?
    pub memory_derived: bool,
}

/// One process on one GPU in one sample.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcReading {
    /// The PID as nvq sees it.
    pub pid: u32,
    /// Its GPU memory, bytes (0 when NVML does not say).
    pub bytes: u64,
    /// Is it one of the job's processes?
    pub job: bool,
    /// PyTorch's counters for it on this GPU (`--torch`), when it sent them.
    pub torch: Option<TorchMem>,
    /// Its SM utilization in NVML's newest process sample, percent.
    pub sm: Option<u32>,
}

/// PyTorch's caching allocator on one GPU of one process (`--torch`), bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TorchMem {
    /// `torch.cuda.memory_allocated`: held by tensors.
    pub allocated: u64,
    /// `torch.cuda.memory_reserved`: held by the allocator, tensors included.
    pub reserved: u64,
    /// `torch.cuda.max_memory_allocated`: the most tensors held.
    pub max_allocated: u64,
}

/// A process's NVML memory split by what PyTorch says of it (`--torch`), bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct TorchSplit {
    /// Held by tensors (`memory_allocated`).
    pub allocated: u64,
    /// Cached by the allocator, free for tensors (`memory_reserved - memory_allocated`).
    pub cached: u64,
    /// Outside PyTorch's allocator: NVML's memory less `memory_reserved` (the
    /// CUDA context, cuBLAS/cuDNN workspaces, NCCL, other libraries).
    pub outside: u64,
    /// `memory_reserved`.
    pub reserved: u64,
    /// The most tensors held during the run (`max_memory_allocated`, the latest seen).
    pub max_allocated: u64,
}

impl TorchSplit {
    /// Split `nvml` bytes (NVML's memory of the process on the GPU) by `t`.
    pub fn of(nvml: u64, t: TorchMem) -> TorchSplit {
        TorchSplit {
            allocated: t.allocated,
            cached: t.reserved.saturating_sub(t.allocated),
            outside: nvml.saturating_sub(t.reserved),
            reserved: t.reserved,
            max_allocated: t.max_allocated,
        }
    }
}

/// What the run has seen of one GPU the job used.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct GpuTrack {
    /// NVML's index.
    pub index: u32,
    /// The GPU's memory, bytes.
    pub total: u64,
    /// The job's most (its processes' sum), bytes.
    pub peak: u64,
    /// When it was, ms since the command started.
    pub peak_at_ms: u64,
    /// The GPU's used memory at the job's peak, bytes.
    pub used_at_peak: u64,
    /// `total - used_at_peak`: the room left then.
    pub headroom_at_peak: u64,
    /// The other processes on the GPU at the job's peak: (PID, bytes).
    pub others_at_peak: Vec<(u32, u64)>,
    /// The GPU's most used memory during the run, bytes.
    pub used_peak: u64,
    /// The job's mean over the samples in which it held memory there, bytes.
    pub mean: u64,
    /// Was accounting mode on (in every sample)? Then `accounting_peak`
    /// is the largest maximum NVML kept for one process of the job, which
    /// catches a spike between two samples.
    pub accounting: bool,
    /// The largest per-process maximum accounting mode kept, bytes.
    pub accounting_peak: u64,
    /// Are `total` and the used figures the system's memory (a
    /// unified-memory GPU, `memory.derived`)?
    pub memory_derived: bool,
    /// The job's memory here over the run, in the samples in which it held
    /// some: each stretch of time's lowest point (the leak verdict's input).
    #[serde(skip)]
    pub floors: Floors,
    /// What the other processes and the driver held (used minus the job's)
    /// in the last sample in which the job held memory here, bytes: the
    /// room the job had is `total - others_last`.
    #[serde(skip)]
    pub others_last: u64,
    #[serde(skip)]
    sum: u128,
    #[serde(skip)]
    samples: u64,
}

impl GpuTrack {
    /// The leak verdict of the job's memory here ([`job_verdict::leak`]),
    /// time to full against the total less what the others held last.
    pub fn leak(&self, cfg: &TrendConfig) -> Leak {
        let room = self.total.saturating_sub(self.others_last) as f64;
        job_verdict::leak(self.floors.points(), room, cfg)
    }
}

/// The most points [`Floors`] keeps: past it, neighbouring stretches of
/// time merge into one (their lowest point), so a day at 100 ms costs as
/// much as a minute.
pub const FLOOR_POINTS: usize = 1024;

/// A series kept as the lowest point of each stretch of time, the stretches
/// doubling in length whenever [`FLOOR_POINTS`] would be passed: what the
/// trend reads of a series (each slice's floor) survives, in bounded memory,
/// however long the run. Times are seconds since the command started.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Floors {
    points: Vec<Point>,
    /// The length of a stretch, seconds (0: every point is kept).
    width: f64,
    /// The first point's time: stretch `k` is `[t0 + k·width, t0 + (k+1)·width)`.
    t0: f64,
}

impl Floors {
    /// Take in a point (in time order).
    pub fn push(&mut self, p: Point) {
        if !(p.t.is_finite() && p.v.is_finite()) {
            return;
        }
        if self.points.is_empty() {
            self.t0 = p.t;
        }
        let (t0, width) = (self.t0, self.width);
        match self.points.last_mut() {
            Some(last) if width > 0.0 && stretch(last.t, t0, width) == stretch(p.t, t0, width) => {
                if p.v < last.v {
                    *last = p;
                }
            }
            _ => self.points.push(p),
        }
        if self.points.len() > FLOOR_POINTS {
            let span = self.points.last().map_or(0.0, |l| l.t) - t0;
            let width = (width * 2.0).max(span / (FLOOR_POINTS / 2) as f64);
            self.width = width;
            let old = std::mem::take(&mut self.points);
            for q in old {
                match self.points.last_mut() {
                    Some(last) if stretch(last.t, t0, width) == stretch(q.t, t0, width) => {
                        if q.v < last.v {
                            *last = q;
                        }
                    }
                    _ => self.points.push(q),
                }
            }
        }
    }

    /// The points kept, oldest first.
    pub fn points(&self) -> &[Point] {
        &self.points
    }
}

/// The stretch of [`Floors`] a time falls in.
fn stretch(t: f64, t0: f64, width: f64) -> u64 {
    ((t - t0) / width).max(0.0) as u64
}

/// One sample as the out-of-memory verdict and the bundle keep it.
#[derive(Debug, Clone, PartialEq)]
pub struct RecentSample {
    /// ms since the command started.
    pub at_ms: u64,
    /// ms since the Unix epoch (the log's `timestamp.epoch`).
    pub epoch_ms: u64,
    /// What each GPU read in time showed.
    pub readings: Vec<GpuReading>,
}

/// The last samples of the run: those of the last `keep_ms`, at most
/// `max` of them (older ones dropped first), whatever the interval.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Recent {
    samples: VecDeque<RecentSample>,
    keep_ms: u64,
    max: usize,
}

impl Recent {
    /// Keep the samples of the last `keep_ms`, at most `max` of them.
    pub fn new(keep_ms: u64, max: usize) -> Self {
        Recent {
            samples: VecDeque::new(),
            keep_ms,
            max: max.max(1),
        }
    }

    /// Take in a sample (in time order), dropping what is too old.
    pub fn push(&mut self, s: RecentSample) {
        let newest = s.at_ms;
        self.samples.push_back(s);
        while self.samples.len() > self.max
            || self
                .samples
                .front()
                .is_some_and(|f| newest.saturating_sub(f.at_ms) > self.keep_ms)
        {
            self.samples.pop_front();
        }
    }

    /// The samples kept, oldest first.
    pub fn samples(&self) -> impl DoubleEndedIterator<Item = &RecentSample> + '_ {
        self.samples.iter()
    }

    /// The job's GPU that was fullest (least free) in the samples of the last
    /// [`OOM_LAST_MS`] before `run_ms`, among `gpus` (those the job used),
    /// with the other processes then, named from `names`; `totals_only`:
    /// the job's processes cannot be told, so none is listed.
    pub fn fullest(
        &self,
        run_ms: u64,
        gpus: &BTreeMap<u32, GpuTrack>,
        names: &BTreeMap<u32, ProcName>,
        totals_only: bool,
    ) -> Option<FullGpu> {
        let since = run_ms.saturating_sub(OOM_LAST_MS);
        let mut best: Option<(u64, FullGpu)> = None;
        for s in self.samples().filter(|s| s.at_ms >= since) {
            for r in s.readings.iter().filter(|r| gpus.contains_key(&r.index)) {
                let free = r.total.saturating_sub(r.used);
                // The latest of equals: nearest the end.
                if best.as_ref().is_some_and(|(f, _)| *f < free) {
                    continue;
                }
                let mut others: Vec<OtherProc> = r
                    .procs
                    .iter()
                    .filter(|p| !p.job && !totals_only)
                    .map(|p| {
                        let n = names.get(&p.pid);
                        OtherProc {
                            pid: p.pid,
                            bytes: p.bytes,
                            name: n.and_then(|n| n.name.clone()),
                            user: n.and_then(|n| n.user.clone()),
                        }
                    })
                    .collect();
                others.sort_by_key(|o| (std::cmp::Reverse(o.bytes), o.pid));
                let full = FullGpu {
                    gpu: r.index,
                    at_ms: s.at_ms,
                    used: r.used,
                    total: r.total,
                    job: if totals_only {
                        r.used
                    } else {
                        r.procs.iter().filter(|p| p.job).map(|p| p.bytes).sum()
                    },
                    attributed: !totals_only,
                    others_bytes: others.iter().map(|o| o.bytes).sum(),
                    others,
                };
                best = Some((free, full));
            }
        }
        best.map(|(_, f)| f)
    }
}

/// What the run has seen of one of the job's processes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProcTrack {
    /// Its PID.
    pub pid: u32,
    /// Its most on one GPU, bytes.
    pub peak: u64,
    /// That GPU.
    pub gpu: u32,
    /// Accounting mode's maximum for it, bytes (0 without accounting).
    pub accounting_peak: u64,
    /// `--torch`: its memory at its peak split by PyTorch's counters then;
    /// `None` when it sent none.
    pub torch: Option<TorchSplit>,
    /// Its mean SM utilization over NVML's process samples, percent; `None`
    /// when NVML gave none.
    pub sm_mean: Option<u32>,
    /// Its highest SM utilization in a process sample, percent.
    pub sm_peak: Option<u32>,
    #[serde(skip)]
    sm_sum: u64,
    #[serde(skip)]
    sm_samples: u64,
}

/// The run so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct JobTrack {
    /// Samples taken.
    pub samples: u64,
    /// Which processes are the job's could not be told (nvq without the
    /// host's PID namespace): each GPU's figures are its used memory, every
    /// process's, and no process is listed.
    pub totals_only: bool,
    /// Every GPU the job held memory on, by index.
    pub gpus: BTreeMap<u32, GpuTrack>,
    /// Every process of the job that held GPU memory, by PID.
    pub procs: BTreeMap<u32, ProcTrack>,
}

impl JobTrack {
    /// Take in one sample, `at_ms` after the command started.
    pub fn add(&mut self, at_ms: u64, readings: &[GpuReading]) {
        self.samples += 1;
        for r in readings {
            let job: u64 = if self.totals_only {
                r.used
            } else {
                r.procs.iter().filter(|p| p.job).map(|p| p.bytes).sum()
            };
            let procs = r.procs.iter().filter(|p| !self.totals_only && p.job);
            for p in procs.filter(|p| p.bytes > 0) {
                let t = self.procs.entry(p.pid).or_insert(ProcTrack {
                    pid: p.pid,
                    ..Default::default()
                });
                if p.bytes > t.peak {
                    t.peak = p.bytes;
                    t.gpu = r.index;
                    t.torch = p.torch.map(|m| TorchSplit::of(p.bytes, m));
                } else if p.bytes == t.peak && r.index == t.gpu && t.torch.is_none() {
                    // PyTorch's first counters may come a sample after the peak.
                    t.torch = p.torch.map(|m| TorchSplit::of(p.bytes, m));
                }
                if let (Some(split), Some(m)) = (t.torch.as_mut(), p.torch) {
                    split.max_allocated = split.max_allocated.max(m.max_allocated);
                }
                if let Some(sm) = p.sm {
                    t.sm_sum += u64::from(sm);
                    t.sm_samples += 1;
                    t.sm_mean = Some((t.sm_sum / t.sm_samples) as u32);
                    t.sm_peak = Some(t.sm_peak.unwrap_or(0).max(sm));
                }
            }
            let seen = self.gpus.contains_key(&r.index);
            if job == 0 && !seen {
                continue;
            }
            let g = self.gpus.entry(r.index).or_insert(GpuTrack {
                index: r.index,
                ..Default::default()
            });
            g.total = r.total;
            g.memory_derived = r.memory_derived;
            g.used_peak = g.used_peak.max(r.used);
            let first = g.samples == 0 && g.peak == 0;
            match &r.accounting {
                Some(acct) => {
                    g.accounting = first || g.accounting;
                    let most = acct.iter().map(|(_, b)| *b).max().unwrap_or(0);
                    g.accounting_peak = g.accounting_peak.max(most);
                    for (pid, b) in acct {
                        if let Some(t) = self.procs.get_mut(pid) {
                            t.accounting_peak = t.accounting_peak.max(*b);
                        }
                    }
                }
                None => g.accounting = false,
            }
            if job > 0 {
                g.sum += u128::from(job);
                g.samples += 1;
                g.mean = (g.sum / u128::from(g.samples)) as u64;
                g.floors.push(Point {
                    t: at_ms as f64 / 1000.0,
                    v: job as f64,
                });
                g.others_last = r.used.saturating_sub(job);
            }
            if job > g.peak {
                g.peak = job;
                g.peak_at_ms = at_ms;
                g.used_at_peak = r.used;
                g.headroom_at_peak = r.total.saturating_sub(r.used);
                g.others_at_peak = r
                    .procs
                    .iter()
                    .filter(|p| !p.job && !self.totals_only)
                    .map(|p| (p.pid, p.bytes))
                    .collect();
            }
        }
    }

    /// The GPU of the job's highest peak (the lowest index among equals).
    pub fn top_gpu(&self) -> Option<&GpuTrack> {
        self.gpus
            .values()
            .fold(None, |best: Option<&GpuTrack>, g| match best {
                Some(b) if b.peak >= g.peak => Some(b),
                _ => Some(g),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proc_(pid: u32, bytes: u64, job: bool) -> ProcReading {
        ProcReading {
            pid,
            bytes,
            job,
            torch: None,
            sm: None,
        }
    }

    #[test]
    fn peaks_means_and_the_others_at_the_peak() {
        let mut t = JobTrack::default();
        let gib = 1u64 << 30;
        t.add(
            0,
            &[
                GpuReading {
                    index: 0,
                    total: 80 * gib,
                    used: 12 * gib,
                    procs: vec![proc_(10, 2 * gib, true), proc_(99, 10 * gib, false)],
                    accounting: None,
                    memory_derived: false,
                },
                GpuReading {
                    index: 1,
                    total: 80 * gib,
                    used: 0,
                    procs: vec![],
                    accounting: None,
                    memory_derived: false,
                },
            ],
        );
        t.add(
            100,
            &[GpuReading {
                index: 0,
                total: 80 * gib,
                used: 16 * gib,
                procs: vec![
                    proc_(10, 4 * gib, true),
                    proc_(11, 2 * gib, true),
                    proc_(99, 10 * gib, false),
                ],
                accounting: None,
                memory_derived: false,
            }],
        );
        assert_eq!(t.samples, 2);
        assert_eq!(t.gpus.len(), 1, "GPU 1 never held the job");
        let g = &t.gpus[&0];
        assert_eq!((g.peak, g.peak_at_ms), (6 * gib, 100));
        assert_eq!(g.headroom_at_peak, 64 * gib);
        assert_eq!(g.others_at_peak, vec![(99, 10 * gib)]);
        assert_eq!(g.mean, 4 * gib);
        assert_eq!(t.procs[&10].peak, 4 * gib);
        assert_eq!(t.top_gpu().map(|g| g.index), Some(0));
        let ranks = BTreeMap::from([(10, 0), (11, 1)]);
        let k = skew(&t.procs, &ranks).unwrap();
        assert_eq!(
            (k.ranks, k.max, k.max_rank, k.median, k.skew),
            (2, 4 * gib, 0, 2 * gib, 2 * gib)
        );
        assert_eq!(skew(&t.procs, &BTreeMap::from([(10, 0)])), None);
    }

    #[test]
    fn pytorchs_split_is_taken_at_the_peak_and_sm_is_averaged() {
        let gib = 1u64 << 30;
        let with = |bytes, allocated, reserved, sm| ProcReading {
            torch: Some(TorchMem {
                allocated,
                reserved,
                max_allocated: allocated,
            }),
            sm: Some(sm),
            ..proc_(5, bytes, true)
        };
        let gpu = |p: ProcReading| GpuReading {
            index: 0,
            total: 80 * gib,
            used: p.bytes,
            procs: vec![p],
            accounting: None,
            memory_derived: false,
        };
        let mut t = JobTrack::default();
        // The first sample has no PyTorch counters yet; the next one, at the
        // same peak, brings them.
        t.add(0, &[gpu(proc_(5, 4 * gib, true))]);
        t.add(100, &[gpu(with(4 * gib, 2 * gib, 3 * gib, 40))]);
        t.add(200, &[gpu(with(3 * gib, gib, 2 * gib, 80))]);
        let p = &t.procs[&5];
        assert_eq!(
            p.torch,
            Some(TorchSplit {
                allocated: 2 * gib,
                cached: gib,
                outside: gib,
                reserved: 3 * gib,
                max_allocated: 2 * gib,
            })
        );
        assert_eq!((p.sm_mean, p.sm_peak), (Some(60), Some(80)));
        // PyTorch saying more than NVML saw is not a negative "outside".
        assert_eq!(
            TorchSplit::of(
                gib,
                TorchMem {
                    allocated: 3 * gib,
                    reserved: 2 * gib,
                    max_allocated: 0
                }
            )
            .outside,
            0
        );
    }

    /// A day at 100 ms, in simulated time: what the run keeps per sample
    /// stays bounded (the floors, the last seconds, the processes), so a
    /// 24-hour job's memory is its first minutes'.
    #[test]
    fn a_day_costs_what_a_minute_does() {
        let gib = 1u64 << 30;
        let mut t = JobTrack::default();
        let mut recent = Recent::new(OOM_LAST_MS, 52);
        let day_ms = 24 * 3600 * 1000u64;
        let mut floor_cap = (0, 0);
        for at_ms in (0..day_ms).step_by(100) {
            // A sawtooth that leaks 1 MiB a minute, and a worker that comes and goes.
            let bytes = 4 * gib + (at_ms % 1000) * 1000 + at_ms / 60_000 * (1 << 20);
            let mut procs = vec![proc_(10, bytes, true), proc_(99, gib, false)];
            if at_ms % 60_000 < 30_000 {
                procs.push(proc_(11, gib, true));
            }
            let r = GpuReading {
                index: 0,
                total: 80 * gib,
                used: bytes + 2 * gib,
                procs,
                accounting: None,
                memory_derived: false,
            };
            t.add(at_ms, std::slice::from_ref(&r));
            recent.push(RecentSample {
                at_ms,
                epoch_ms: at_ms,
                readings: vec![r],
            });
            if at_ms == 60_000 {
                floor_cap = (
                    t.gpus[&0].floors.points.len(),
                    t.gpus[&0].floors.points.capacity(),
                );
            }
        }
        let g = &t.gpus[&0];
        assert_eq!(t.samples, day_ms / 100);
        assert!(
            g.floors.points().len() <= FLOOR_POINTS,
            "{}",
            g.floors.points().len()
        );
        // The floors' buffer is no larger than a minute's would grow to.
        assert!(
            g.floors.points.capacity() <= 2 * FLOOR_POINTS && floor_cap.0 == 601,
            "{floor_cap:?} -> {}",
            g.floors.points.capacity()
        );
        assert_eq!(recent.samples().count(), 51, "the last 5 s at 100 ms");
        assert_eq!(t.procs.len(), 2);
        assert!(g.others_at_peak.len() == 1 && g.peak > 4 * gib + 1400 * (1 << 20));
    }

    #[test]
    fn without_attribution_the_gpus_totals_and_no_process() {
        let gib = 1u64 << 30;
        let mut t = JobTrack {
            totals_only: true,
            ..Default::default()
        };
        t.add(
            50,
            &[GpuReading {
                index: 1,
                total: 80 * gib,
                used: 7 * gib,
                procs: vec![proc_(10, 2 * gib, false), proc_(11, 5 * gib, true)],
                accounting: None,
                memory_derived: false,
            }],
        );
        let g = &t.gpus[&1];
        assert_eq!((g.peak, g.peak_at_ms, g.mean), (7 * gib, 50, 7 * gib));
        assert!(g.others_at_peak.is_empty() && t.procs.is_empty(), "{t:?}");
    }
}

/// The end of a run, as the report tells it.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct RunReport {
    /// The command, as started (control characters shown as `?`).
    pub command: String,
    /// Its exit status as a shell gives it (128 + N for signal N).
    pub exit: i32,
    /// How long it ran, ms.
    pub run_ms: u64,
    /// The interval between samples, ms.
    pub interval_ms: u64,
    /// What was seen.
    pub track: JobTrack,
    /// Each process's command line (the first seen), by PID.
    pub commands: BTreeMap<u32, String>,
    /// What could not be watched, and from when ("NVML could not be loaded: ...").
    pub notes: Vec<String>,
    /// Each process's rank (`RANK`/`LOCAL_RANK` in its environment), by PID.
    pub ranks: BTreeMap<u32, u32>,
    /// The skew of peak memory between ranks, when there are two or more.
    pub skew: Option<Skew>,
    /// Each GPU's leak verdict, by index (`model::job_verdict::leak`).
    pub leaks: BTreeMap<u32, Leak>,
    /// The out-of-memory verdict, when the command died of it.
    pub oom: Option<Oom>,
    /// The name and user of each other process the report names, by PID.
    pub others: BTreeMap<u32, ProcName>,
    /// The folder the bundle was kept in (`--bundle`), when it was.
    pub bundle: Option<String>,
    /// What PyTorch said (`--torch`); `None` without it.
    pub torch: Option<TorchReport>,
}

/// What the job's PyTorch said over the `--torch` channel.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TorchReport {
    /// The processes that sent PyTorch's counters, by PID.
    pub processes: Vec<u32>,
    /// The out-of-memory errors PyTorch reported.
    pub ooms: Vec<TorchOom>,
}

/// An out-of-memory error PyTorch reported (`torch.cuda.OutOfMemoryError`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TorchOom {
    /// The process.
    pub pid: u32,
    /// Its CUDA device (its own ordinal), when known.
    pub device: Option<u32>,
    /// The allocator's snapshot written then (`--torch-snapshot`), a path.
    pub snapshot: Option<String>,
}

/// How far the ranks' peaks are apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Skew {
    /// How many ranks held GPU memory.
    pub ranks: usize,
    /// The highest rank peak (a rank's peak: its processes' highest), bytes.
    pub max: u64,
    /// The rank with it.
    pub max_rank: u32,
    /// The median of the ranks' peaks, bytes (the lower middle for an even count).
    pub median: u64,
    /// `max - median`, bytes.
    pub skew: u64,
}

/// The skew between the ranks of `procs` (peaks by PID), given each PID's
/// rank; `None` with fewer than two ranks.
pub fn skew(procs: &BTreeMap<u32, ProcTrack>, ranks: &BTreeMap<u32, u32>) -> Option<Skew> {
    let mut by_rank: BTreeMap<u32, u64> = BTreeMap::new();
    for (pid, p) in procs {
        if let Some(r) = ranks.get(pid) {
            let e = by_rank.entry(*r).or_default();
            *e = (*e).max(p.peak.max(p.accounting_peak));
        }
    }
    if by_rank.len() < 2 {
        return None;
    }
    let (max_rank, max) = by_rank
        .iter()
        .max_by_key(|(r, b)| (**b, std::cmp::Reverse(**r)))?;
    let mut peaks: Vec<u64> = by_rank.values().copied().collect();
    peaks.sort_unstable();
    let median = peaks[(peaks.len() - 1) / 2];
    Some(Skew {
        ranks: peaks.len(),
        max: *max,
        max_rank: *max_rank,
        median,
        skew: max - median,
    })
}
