//! `nvq run`'s end report: the one line a person reads first, then per GPU
//! and per process, as text for stderr; or the same as one JSON document.
//! Pure: the report in, text out.

use crate::model::job::{GpuTrack, RunReport};
use std::fmt::Write;

/// Bytes as `71.2 GiB` (`512 MiB` below a GiB).
pub fn size(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    let b = bytes as f64;
    if b >= 1024.0 * MIB {
        format!("{:.1} GiB", b / (1024.0 * MIB))
    } else {
        format!("{:.0} MiB", b / MIB)
    }
}

/// A time since the start: `850ms`, `4.2s`, `12m03s`, `3h05m`.
pub fn since(ms: u64) -> String {
    let s = ms / 1000;
    match s {
        _ if ms < 1000 => format!("{ms}ms"),
        0..=59 => format!("{:.1}s", ms as f64 / 1000.0),
        60..=3599 => format!("{}m{:02}s", s / 60, s % 60),
        _ => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

/// A GPU's memory in all; on a unified-memory GPU, the system's, said so.
fn total(g: &GpuTrack) -> String {
    match g.memory_derived {
        true => format!("{} (the system's memory)", size(g.total)),
        false => size(g.total),
    }
}

/// Under a unified-memory GPU's line: where its figures come from.
const DERIVED_LINE: &str = "    its memory is the system's, which it shares (unified memory): \
     used MemTotal - MemAvailable of MemTotal, from /proc/meminfo";

/// The one line read first: `peak 71.2 GiB of 80.0 GiB on GPU 0 at 12m03s; exit 0`.
pub fn summary(r: &RunReport) -> String {
    match r.track.top_gpu() {
        Some(g) if r.track.totals_only => format!(
            "GPU {} used at most {} of {} at {} (every process's: the job's cannot be told here); exit {}",
            g.index,
            size(g.peak),
            total(g),
            since(g.peak_at_ms),
            r.exit
        ),
        Some(g) if g.accounting_peak > g.peak => format!(
            "peak {} of {} on GPU {} (accounting mode, between samples); exit {}",
            size(g.accounting_peak),
            total(g),
            g.index,
            r.exit
        ),
        Some(g) => format!(
            "peak {} of {} on GPU {} at {}; exit {}",
            size(g.peak),
            total(g),
            g.index,
            since(g.peak_at_ms),
            r.exit
        ),
        None => format!("no GPU memory seen for the job; exit {}", r.exit),
    }
}

/// The text report, every line starting `nvq run: ` or indented.
pub fn text(r: &RunReport) -> String {
    let mut out = format!("nvq run: {}\n", summary(r));
    let _ = writeln!(
        out,
        "nvq run: {} ran {}, {} samples every {} ms (a spike shorter than that may fall between two)",
        r.command,
        since(r.run_ms),
        r.track.samples,
        r.interval_ms
    );
    for g in r.track.gpus.values().filter(|_| r.track.totals_only) {
        let _ = writeln!(
            out,
            "  GPU {}: used at most {} at {}, mean {} (every process's), of {}",
            g.index,
            size(g.peak),
            since(g.peak_at_ms),
            size(g.mean),
            size(g.total)
        );
        if g.memory_derived {
            let _ = writeln!(out, "{DERIVED_LINE}");
        }
    }
    for g in r.track.gpus.values().filter(|_| !r.track.totals_only) {
        let _ = writeln!(
            out,
            "  GPU {}: job peak {} at {}, mean {}; GPU used {} of {} then ({} free), its own peak {}",
            g.index,
            size(g.peak),
            since(g.peak_at_ms),
            size(g.mean),
            size(g.used_at_peak),
            size(g.total),
            size(g.headroom_at_peak),
            size(g.used_peak)
        );
        if g.memory_derived {
            let _ = writeln!(out, "{DERIVED_LINE}");
        }
        if g.accounting {
            let _ = writeln!(
                out,
                "    accounting mode: the most one process of the job held was {}{}",
                size(g.accounting_peak),
                if g.accounting_peak > g.peak {
                    " (a spike between samples)"
                } else {
                    ""
                }
            );
        } else {
            let _ = writeln!(
                out,
                "    accounting mode is off: a spike shorter than {} ms may be missed",
                r.interval_ms
            );
        }
        if !g.others_at_peak.is_empty() {
            let others: Vec<String> = g
                .others_at_peak
                .iter()
                .map(|(pid, b)| format!("PID {pid} {}", size(*b)))
                .collect();
            let _ = writeln!(out, "    other processes then: {}", others.join(", "));
        }
    }
    for p in r.track.procs.values() {
        let cmd = r.commands.get(&p.pid).map_or("", String::as_str);
        let acct = if p.accounting_peak > p.peak {
            format!(" (accounting: {})", size(p.accounting_peak))
        } else {
            String::new()
        };
        let rank = r
            .ranks
            .get(&p.pid)
            .map_or(String::new(), |k| format!(" (rank {k})"));
        let sm = match (p.sm_mean, p.sm_peak) {
            (Some(mean), Some(peak)) => format!(", SM {mean}% mean, {peak}% at most"),
            _ => String::new(),
        };
        let _ = writeln!(
            out,
            "  PID {}{rank}: peak {}{acct} on GPU {}{sm}  {}",
            p.pid,
            size(p.peak),
            p.gpu,
            cmd
        );
        if let Some(t) = p.torch {
            let _ = writeln!(
                out,
                "    PyTorch then: allocated {}, cached by its allocator {}, outside PyTorch {} \
                 (CUDA context, libraries); most allocated {}",
                size(t.allocated),
                size(t.cached),
                size(t.outside),
                size(t.max_allocated)
            );
        }
    }
    for o in r.torch.iter().flat_map(|t| &t.ooms) {
        let device = o
            .device
            .map_or(String::new(), |d| format!(" on its CUDA device {d}"));
        let snapshot = o
            .snapshot
            .as_deref()
            .map_or(String::new(), |s| format!("; snapshot {s}"));
        let _ = writeln!(
            out,
            "nvq run: PyTorch ran out of memory in PID {}{device} (torch.cuda.OutOfMemoryError){snapshot}",
            o.pid
        );
    }
    if let Some(k) = r.skew {
        let _ = writeln!(
            out,
            "  ranks: {}; highest peak {} (rank {}), median {}, skew {}",
            k.ranks,
            size(k.max),
            k.max_rank,
            size(k.median),
            size(k.skew)
        );
    }
    for n in &r.notes {
        let _ = writeln!(out, "nvq run: note: {n}");
    }
    out
}

/// The report as one JSON document (with `summary`, the line read first).
pub fn json(r: &RunReport) -> String {
    #[derive(serde::Serialize)]
    struct Doc<'a> {
        summary: String,
        #[serde(flatten)]
        report: &'a RunReport,
    }
    let doc = Doc {
        summary: summary(r),
        report: r,
    };
    let mut s = serde_json::to_string(&doc).unwrap_or_else(|_| "{}".into());
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::job::{GpuReading, JobTrack, ProcReading, TorchMem};

    #[test]
    fn the_line_read_first_and_the_json() {
        let gib = 1u64 << 30;
        let mut track = JobTrack::default();
        track.add(
            723_000,
            &[GpuReading {
                index: 0,
                total: 80 * gib,
                used: 72 * gib,
                procs: vec![ProcReading {
                    pid: 7,
                    bytes: 71 * gib,
                    job: true,
                    torch: Some(TorchMem {
                        allocated: 60 * gib,
                        reserved: 68 * gib,
                        max_allocated: 64 * gib,
                    }),
                    sm: Some(80),
                }],
                accounting: None,
                memory_derived: false,
            }],
        );
        let r = RunReport {
            command: "python train.py".into(),
            exit: 0,
            run_ms: 800_000,
            interval_ms: 100,
            track,
            ..Default::default()
        };
        assert_eq!(
            summary(&r),
            "peak 71.0 GiB of 80.0 GiB on GPU 0 at 12m03s; exit 0"
        );
        let t = text(&r);
        assert!(t.starts_with("nvq run: peak 71.0 GiB"), "{t}");
        assert!(
            t.contains("PID 7: peak 71.0 GiB on GPU 0, SM 80% mean, 80% at most"),
            "{t}"
        );
        assert!(
            t.contains(
                "PyTorch then: allocated 60.0 GiB, cached by its allocator 8.0 GiB, outside \
                 PyTorch 3.0 GiB"
            ),
            "{t}"
        );
        let v: serde_json::Value = serde_json::from_str(&json(&r)).unwrap();
        assert_eq!(v["exit"], 0);
        assert_eq!(v["track"]["gpus"]["0"]["peak"], 71 * gib);
        assert_eq!(size(512 << 20), "512 MiB");
        assert_eq!(v["track"]["procs"]["7"]["torch"]["outside"], 3 * gib);
        let mut totals = r.clone();
        totals.track = JobTrack {
            totals_only: true,
            ..Default::default()
        };
        totals.track.add(
            1000,
            &[GpuReading {
                index: 0,
                total: 80 * gib,
                used: 72 * gib,
                procs: vec![],
                accounting: None,
                memory_derived: false,
            }],
        );
        assert_eq!(
            summary(&totals),
            "GPU 0 used at most 72.0 GiB of 80.0 GiB at 1.0s (every process's: the job's cannot \
             be told here); exit 0"
        );
        assert_eq!(since(850), "850ms");
        assert_eq!(since(4200), "4.2s");
        assert_eq!(since(3 * 3_600_000 + 5 * 60_000), "3h05m");
    }
}
