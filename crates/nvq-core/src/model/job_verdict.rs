//! `nvq run`'s verdicts at the end of a run, from what `model::job` kept:
//!
//! - **Leak** ([`leak`]): per GPU, the job's memory after a warm-up (the
//!   first [`WARMUP_SHARE`] of the time it held memory there, at most
//!   [`WARMUP_MAX_S`]) judged by `model::trend`'s one method (floors of
//!   twelve slices, Theil–Sen rate, "rising steadily"), so a caching
//!   allocator's sawtooth is not a leak. A run whose judged part is shorter
//!   than the rising time a leak needs (`--rising-for`) is too short to
//!   judge, and says so instead of giving a rate.
//! - **Out of memory** ([`oom`]): the command ended with a failure status
//!   while one of its GPUs was within [`oom_margin`] of full in its last
//!   [`OOM_LAST_MS`]. The reasons are a list ([`OomReason`]), so that other
//!   evidence (what PyTorch reported) can be added beside the GPU's.
//!
//! Pure: data in, verdicts out.

use super::history::{Point, Series};
use super::trend::{self, TrendConfig};
use serde::Serialize;

/// The warm-up: this share of the time the job held memory on a GPU...
pub const WARMUP_SHARE: f64 = 0.2;
/// ... at most this long, seconds.
pub const WARMUP_MAX_S: f64 = 600.0;

/// What the leak verdict says of one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "verdict", rename_all = "snake_case")]
pub enum Leak {
    /// Rising steadily after the warm-up.
    Leak {
        /// The rate, bytes a second.
        rate_per_s: f64,
        /// At that rate, until the GPU is full (what the others held last
        /// left aside), seconds.
        time_to_full_s: Option<f64>,
        /// The warm-up left out, ms.
        warmup_ms: u64,
        /// The time judged after it, ms.
        judged_ms: u64,
    },
    /// Judged, and not rising steadily.
    NoLeak {
        /// The warm-up left out, ms.
        warmup_ms: u64,
        /// The time judged after it, ms.
        judged_ms: u64,
    },
    /// Too little after the warm-up to tell a leak: a leak must rise for
    /// `needed_ms` (`--rising-for`), and the run gave `judged_ms`.
    TooShort {
        /// The time judged after the warm-up, ms.
        judged_ms: u64,
        /// What a verdict needs, ms.
        needed_ms: u64,
    },
}

/// The leak verdict of the job's memory on a GPU, given as its floors
/// (seconds since the start, bytes; `model::job::Floors`) and the room it
/// had (the GPU's total less what the others held). `cfg.window_s` is the
/// window judged (the last that many seconds); infinite: everything after
/// the warm-up.
pub fn leak(pts: &[Point], room: f64, cfg: &TrendConfig) -> Leak {
    let (Some(first), Some(last)) = (pts.first(), pts.last()) else {
        return too_short(0.0, cfg);
    };
    let held = last.t - first.t;
    let warmup = (held * WARMUP_SHARE).min(WARMUP_MAX_S);
    let from = (first.t + warmup).max(last.t - cfg.window_s);
    let judged = last.t - from;
    // (NaN settings included: a span not known to be long enough is not.)
    let long_enough = judged >= cfg.min_duration_s;
    if !long_enough {
        return too_short(judged, cfg);
    }
    let mut series = Series::with_cap(pts.len());
    for p in pts.iter().filter(|p| p.t >= from) {
        series.push(Point { t: p.t, v: p.v });
    }
    let cfg = TrendConfig {
        window_s: judged,
        ..*cfg
    };
    let ms = |s: f64| (s * 1000.0).round() as u64;
    match trend::trend(&series, Some(room), &cfg) {
        None => too_short(judged, &cfg),
        Some(t) if t.rising => Leak::Leak {
            rate_per_s: t.slope_per_s,
            time_to_full_s: t.time_to_full_s,
            warmup_ms: ms(warmup),
            judged_ms: ms(judged),
        },
        Some(_) => Leak::NoLeak {
            warmup_ms: ms(warmup),
            judged_ms: ms(judged),
        },
    }
}

fn too_short(judged_s: f64, cfg: &TrendConfig) -> Leak {
    let ms = |s: f64| (s.max(0.0) * 1000.0).round() as u64;
    Leak::TooShort {
        judged_ms: ms(judged_s),
        needed_ms: ms(cfg.min_duration_s),
    }
}

/// How long before the end of the run the out-of-memory verdict looks back, ms.
pub const OOM_LAST_MS: u64 = 5000;
/// A GPU is "full" when its free memory is at most this share of its total...
pub const OOM_MARGIN_SHARE: f64 = 0.02;
/// ... or at most this many bytes, whichever is larger (512 MiB).
pub const OOM_MARGIN_MIN: u64 = 512 << 20;

/// The margin within which a GPU of `total` bytes counts as full.
pub fn oom_margin(total: u64) -> u64 {
    ((total as f64 * OOM_MARGIN_SHARE) as u64).max(OOM_MARGIN_MIN)
}

/// Why a run is said to have died of out-of-memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OomReason {
    /// One of the job's GPUs was within [`oom_margin`] of full in the last
    /// [`OOM_LAST_MS`] before the command failed.
    GpuFull,
    /// PyTorch reported an out-of-memory error (`nvq run --torch`).
    TorchReported,
}

/// Another process on the GPU, named.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct OtherProc {
    /// Its PID.
    pub pid: u32,
    /// Its GPU memory then, bytes.
    pub bytes: u64,
    /// Its name (`comm`, else NVML's process name), as read.
    pub name: Option<String>,
    /// The user it runs as.
    pub user: Option<String>,
}

/// A GPU at its fullest in the last seconds of the run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FullGpu {
    /// NVML's index.
    pub gpu: u32,
    /// When, ms since the command started.
    pub at_ms: u64,
    /// Bytes in use then, by anyone.
    pub used: u64,
    /// The GPU's memory, bytes.
    pub total: u64,
    /// The job's bytes then.
    pub job: u64,
    /// The other processes then, largest first.
    pub others: Vec<OtherProc>,
    /// Their bytes together.
    pub others_bytes: u64,
    /// Were the job's processes told from the others? (Not where nvq
    /// cannot map NVML's PIDs: then `job` is every process's, and no
    /// other is listed.)
    pub attributed: bool,
}

/// The out-of-memory verdict.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Oom {
    /// The command's status.
    pub exit: i32,
    /// Why (at least one).
    pub reasons: Vec<OomReason>,
    /// The job's GPU that was fullest in the last seconds.
    pub fullest: Option<FullGpu>,
}

/// A process's name and user, as read once.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ProcName {
    /// `comm` from `/proc`, else NVML's process name.
    pub name: Option<String>,
    /// The user name (the uid's number when it has none).
    pub user: Option<String>,
}

/// Is `exit` (a shell's status) a failure an out-of-memory death can give:
/// an exit code from 1 to 125 (an uncaught exception is 1), or death by
/// SIGABRT, SIGBUS or SIGSEGV (a crash)? A stop (SIGINT, SIGTERM, SIGHUP,
/// SIGKILL, ...) is not: someone or something stopped the command.
pub fn failed(exit: i32) -> bool {
    (1..=125).contains(&exit) || [128 + 6, 128 + 7, 128 + 11].contains(&exit)
}

/// The out-of-memory verdict: `Some` when the command failed ([`failed`])
/// and there is a reason, the GPU's fullness ([`OomReason::GpuFull`]) or
/// one given in `also` (other evidence, such as what PyTorch reported).
pub fn oom(exit: i32, fullest: Option<FullGpu>, also: &[OomReason]) -> Option<Oom> {
    if !failed(exit) {
        return None;
    }
    let mut reasons = Vec::new();
    if fullest
        .as_ref()
        .is_some_and(|f| f.total.saturating_sub(f.used) <= oom_margin(f.total))
    {
        reasons.push(OomReason::GpuFull);
    }
    for r in also {
        if !reasons.contains(r) {
            reasons.push(*r);
        }
    }
    (!reasons.is_empty()).then_some(Oom {
        exit,
        reasons,
        fullest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::job::{GpuReading, GpuTrack, JobTrack, ProcReading, Recent, RecentSample};
    use std::collections::BTreeMap;

    const GIB: u64 = 1 << 30;

    /// A track of GPU 0 from `f(t)` (the job's bytes at second t), every
    /// `step` seconds for `secs`, on an 80 GiB GPU.
    fn track(secs: f64, step: f64, f: impl Fn(f64) -> u64) -> JobTrack {
        let mut t = JobTrack::default();
        let mut s = 0.0;
        while s <= secs {
            let job = f(s);
            t.add((s * 1000.0) as u64, &[one_job_process(job + GIB, job)]);
            s += step;
        }
        t
    }

    /// GPU 0 of 80 GiB with `used` in use, `job` of it held by the job's one process (PID 7).
    fn one_job_process(used: u64, job: u64) -> GpuReading {
        GpuReading {
            index: 0,
            total: 80 * GIB,
            used,
            procs: vec![ProcReading {
                pid: 7,
                bytes: job,
                job: true,
                torch: None,
                sm: None,
            }],
            accounting: None,
            memory_derived: false,
        }
    }

    /// The settings `nvq run` judges with by default: all of the run after the warm-up.
    fn whole_run() -> TrendConfig {
        TrendConfig {
            window_s: f64::INFINITY,
            ..TrendConfig::default()
        }
    }

    #[test]
    fn a_leak_a_sawtooth_a_plateau_and_a_short_run() {
        let cfg = whole_run();
        // Two hours at 1 s: 2 GiB, then 100 MiB a minute.
        let t = track(7200.0, 1.0, |s| {
            2 * GIB + (s / 60.0 * 100.0 * 1048576.0) as u64
        });
        match t.gpus[&0].leak(&cfg) {
            Leak::Leak {
                rate_per_s,
                time_to_full_s,
                warmup_ms,
                ..
            } => {
                let per_min = rate_per_s * 60.0 / 1048576.0;
                assert!((per_min - 100.0).abs() < 2.0, "{per_min} MiB/min");
                assert_eq!(warmup_ms, 600_000, "the warm-up is at most 10 minutes");
                // 80 - 1 (the driver's) - 2 - 11.7 GiB left at 100 MiB/min: about 11 hours.
                let h = time_to_full_s.unwrap() / 3600.0;
                assert!((10.0..12.5).contains(&h), "{h} h");
            }
            other => panic!("{other:?}"),
        }
        // A caching allocator's sawtooth: 4 GiB, and 6 GiB more for 10 s of every 30.
        let t = track(3600.0, 1.0, |s| {
            4 * GIB + if (s as u64) % 30 < 10 { 6 * GIB } else { 0 }
        });
        assert!(
            matches!(t.gpus[&0].leak(&cfg), Leak::NoLeak { .. }),
            "{:?}",
            t.gpus[&0].leak(&cfg)
        );
        // Loading a model, then a plateau.
        let t = track(3600.0, 1.0, |s| {
            (s.min(300.0) / 300.0 * 40.0 * GIB as f64) as u64
        });
        assert!(matches!(t.gpus[&0].leak(&cfg), Leak::NoLeak { .. }));
        // Two minutes rising: too short for a leak that must rise for 5 minutes.
        let t = track(120.0, 0.5, |s| GIB + (s * 1e8) as u64);
        assert_eq!(
            t.gpus[&0].leak(&cfg),
            Leak::TooShort {
                judged_ms: 96_000,
                needed_ms: 300_000
            }
        );
    }

    #[test]
    fn a_day_at_100_ms_keeps_bounded_floors_and_still_finds_the_leak() {
        let mut t = JobTrack::default();
        let mut ms = 0u64;
        while ms <= 24 * 3_600_000 {
            // 10 GiB, 20 MiB a minute more, and a 2 GiB tooth every 10 s.
            let s = ms as f64 / 1000.0;
            let tooth = if ms % 10_000 < 3000 { 2 * GIB } else { 0 };
            let job = 10 * GIB + (s / 60.0 * 20.0 * 1048576.0) as u64 + tooth;
            t.add(ms, &[one_job_process(job, job)]);
            ms += 100;
        }
        let g = &t.gpus[&0];
        assert!(g.floors.points().len() <= crate::model::job::FLOOR_POINTS);
        let l = g.leak(&whole_run());
        assert!(matches!(l, Leak::Leak { .. }), "{l:?}");
        // The last ten minutes alone rose by 200 MiB: less than a leak's 256 MiB.
        assert!(matches!(
            g.leak(&TrendConfig::default()),
            Leak::NoLeak { .. }
        ));
    }

    fn sample(at_ms: u64, used: u64, job: u64, other: u64) -> RecentSample {
        RecentSample {
            at_ms,
            epoch_ms: 0,
            readings: vec![GpuReading {
                index: 0,
                total: 80 * GIB,
                used,
                procs: vec![
                    ProcReading {
                        pid: 7,
                        bytes: job,
                        job: true,
                        torch: None,
                        sm: None,
                    },
                    ProcReading {
                        pid: 9112,
                        bytes: other,
                        job: false,
                        torch: None,
                        sm: None,
                    },
                ],
                accounting: None,
                memory_derived: false,
            }],
        }
    }

    #[test]
    fn out_of_memory_when_failing_near_full_and_not_otherwise() {
        let mut recent = Recent::new(60_000, 100);
        recent.push(sample(1000, 40 * GIB, 20 * GIB, 20 * GIB));
        recent.push(sample(9000, 79 * GIB + GIB / 2, 57 * GIB, 22 * GIB));
        // The job freed its memory as it died.
        recent.push(sample(9900, 22 * GIB, 0, 22 * GIB));
        let mut gpus = BTreeMap::new();
        gpus.insert(0, GpuTrack::default());
        let names = BTreeMap::from([(
            9112,
            ProcName {
                name: Some("python3".into()),
                user: Some("bob".into()),
            },
        )]);
        let f = recent.fullest(10_000, &gpus, &names, false);
        let o = oom(1, f.clone(), &[]).expect("out of memory");
        assert_eq!(o.reasons, [OomReason::GpuFull]);
        let full = o.fullest.unwrap();
        assert_eq!(
            (full.at_ms, full.job, full.others_bytes),
            (9000, 57 * GIB, 22 * GIB)
        );
        assert_eq!(full.others[0].user.as_deref(), Some("bob"));
        // Success, or a stop, is no out-of-memory death.
        assert_eq!(oom(0, f.clone(), &[]), None);
        assert_eq!(oom(130, f.clone(), &[]), None);
        assert_eq!(oom(143, f, &[]), None);
        // Full, but longer ago than the last seconds: no.
        assert_eq!(
            oom(1, recent.fullest(20_000, &gpus, &names, false), &[]),
            None
        );
        // Not near full: no, unless another reason says so.
        let mut calm = Recent::new(60_000, 100);
        calm.push(sample(9000, 60 * GIB, 38 * GIB, 22 * GIB));
        let f = calm.fullest(10_000, &gpus, &names, false);
        assert_eq!(oom(1, f.clone(), &[]), None);
        assert_eq!(
            oom(1, f, &[OomReason::TorchReported]).map(|o| o.reasons),
            Some(vec![OomReason::TorchReported])
        );
        assert_eq!(oom_margin(80 * GIB), (80.0 * 0.02 * GIB as f64) as u64);
        assert_eq!(oom_margin(8 * GIB), 512 << 20);
    }
}
