//! `nvq run`'s end report: the one line a person reads first, then per GPU
//! and per process, as text for stderr; or the same as one JSON document.
//! Pure: the report in, text out.

use crate::model::job::{GpuReading, GpuTrack, RunReport};
use crate::model::job_verdict::{oom_margin, Leak, Oom, OomReason, ProcName};
use crate::model::trend::format_duration;
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

/// The one line read first: the out-of-memory verdict when it fired
/// ([`oom_line`]), else [`peak_line`].
pub fn summary(r: &RunReport) -> String {
    match &r.oom {
        Some(o) => oom_line(o, &r.others),
        None => peak_line(r),
    }
}

/// `peak 71.2 GiB of 80.0 GiB on GPU 0 at 12m03s (rank 0); no leak; exit 0`.
pub fn peak_line(r: &RunReport) -> String {
    let Some(g) = r.track.top_gpu() else {
        return format!("no GPU memory seen for the job; exit {}", r.exit);
    };
    let mut line = if r.track.totals_only {
        format!(
            "GPU {} used at most {} of {} at {} (every process's: the job's cannot be told here)",
            g.index,
            size(g.peak),
            total(g),
            since(g.peak_at_ms)
        )
    } else if g.accounting_peak > g.peak {
        format!(
            "peak {} of {} on GPU {} (accounting mode, between samples)",
            size(g.accounting_peak),
            total(g),
            g.index
        )
    } else {
        format!(
            "peak {} of {} on GPU {} at {}",
            size(g.peak),
            total(g),
            g.index,
            since(g.peak_at_ms)
        )
    };
    // The rank of the job's largest process on that GPU.
    let rank = r
        .track
        .procs
        .values()
        .filter(|p| p.gpu == g.index)
        .max_by_key(|p| (p.peak, std::cmp::Reverse(p.pid)))
        .and_then(|p| r.ranks.get(&p.pid));
    if let Some(k) = rank {
        let _ = write!(line, " (rank {k})");
    }
    if let Some(words) = leak_words(r) {
        let _ = write!(line, "; {words}");
    }
    let _ = write!(line, "; exit {}", r.exit);
    line
}

/// The leak verdict in a few words for the first line: the leak with the
/// nearest time to full, else `no leak` when a GPU was judged, else `too
/// short to judge a leak`; `None` without a verdict.
fn leak_words(r: &RunReport) -> Option<String> {
    let soonest = r
        .leaks
        .iter()
        .filter_map(|(gpu, l)| match l {
            Leak::Leak {
                rate_per_s,
                time_to_full_s,
                ..
            } => Some((*gpu, *rate_per_s, *time_to_full_s)),
            _ => None,
        })
        .min_by(|a, b| {
            let key = |t: Option<f64>| t.unwrap_or(f64::INFINITY);
            key(a.2).total_cmp(&key(b.2))
        });
    if let Some((gpu, rate, full)) = soonest {
        return Some(format!(
            "leak {} on GPU {gpu}{}",
            rate_text(rate),
            full_text(full)
        ));
    }
    if r.leaks.values().any(|l| matches!(l, Leak::NoLeak { .. })) {
        return Some("no leak".into());
    }
    (!r.leaks.is_empty()).then(|| "too short to judge a leak".into())
}

/// A rate of bytes a second as `+1.0 GiB/min`.
fn rate_text(per_s: f64) -> String {
    let per_min = per_s * 60.0;
    let sign = if per_min < 0.0 { "-" } else { "+" };
    format!("{sign}{}/min", size(per_min.abs() as u64))
}

fn full_text(full_s: Option<f64>) -> String {
    full_s.map_or(String::new(), |f| {
        format!(", full in {}", format_duration(f))
    })
}

/// The longest name or user shown of another process, in characters.
const NAME_SHOWN: usize = 40;

/// How many other processes the out-of-memory line names.
const OTHERS_NAMED: usize = 3;

/// A name as a terminal may show it: hidden characters as `?` (the
/// `render::printable` rule), at most [`NAME_SHOWN`] characters.
fn shown(name: &str) -> String {
    let mut out: String = super::printable(name).chars().take(NAME_SHOWN).collect();
    if name.chars().count() > NAME_SHOWN {
        out.push('…');
    }
    out
}

/// `PID 9112 python3, user bob` (what is known of it).
fn who(pid: u32, n: Option<&ProcName>) -> String {
    let mut s = format!("PID {pid}");
    if let Some(name) = n.and_then(|n| n.name.as_deref()) {
        let _ = write!(s, " {}", shown(name));
    }
    if let Some(user) = n.and_then(|n| n.user.as_deref()) {
        let _ = write!(s, ", user {}", shown(user));
    }
    s
}

/// `exit 1 at 79.6 GiB of 80.0 GiB on GPU 0: out of memory; other processes
/// held 22.0 GiB (PID 9112 python3, user bob)`.
pub fn oom_line(o: &Oom, names: &std::collections::BTreeMap<u32, ProcName>) -> String {
    let mut line = format!("exit {}", o.exit);
    if let Some(f) = &o.fullest {
        let _ = write!(
            line,
            " at {} of {} on GPU {}",
            size(f.used),
            size(f.total),
            f.gpu
        );
    }
    line.push_str(": out of memory");
    for reason in &o.reasons {
        match reason {
            // Said by the numbers above.
            OomReason::GpuFull => {}
            OomReason::TorchReported => line.push_str(" (PyTorch reported it)"),
        }
    }
    let Some(f) = &o.fullest else { return line };
    if !f.attributed {
        line.push_str("; which processes held it cannot be told here");
        return line;
    }
    if f.others.is_empty() {
        let _ = write!(
            line,
            "; the job held {} of it, no other process any",
            size(f.job)
        );
        return line;
    }
    let listed: Vec<String> = f
        .others
        .iter()
        .take(OTHERS_NAMED)
        .map(|p| {
            // The verdict's own names, else the report's.
            let own = ProcName {
                name: p.name.clone(),
                user: p.user.clone(),
            };
            let known = own.name.is_some() || own.user.is_some();
            let mut w = who(p.pid, if known { Some(&own) } else { names.get(&p.pid) });
            if f.others.len() > 1 {
                let _ = write!(w, ": {}", size(p.bytes));
            }
            w
        })
        .collect();
    let more = f.others.len().saturating_sub(OTHERS_NAMED);
    let _ = write!(
        line,
        "; other processes held {} ({}{})",
        size(f.others_bytes),
        listed.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    );
    line
}

/// A GPU's leak verdict as a line of the report.
fn leak_line(l: &Leak) -> String {
    match *l {
        Leak::Leak {
            rate_per_s,
            time_to_full_s,
            warmup_ms,
            judged_ms,
        } => format!(
            "leak: rising steadily by {}{} (judged over {} after a {} warm-up)",
            rate_text(rate_per_s),
            full_text(time_to_full_s),
            since(judged_ms),
            since(warmup_ms)
        ),
        Leak::NoLeak {
            warmup_ms,
            judged_ms,
        } => format!(
            "no leak: not rising steadily over {} after a {} warm-up",
            since(judged_ms),
            since(warmup_ms)
        ),
        Leak::TooShort {
            judged_ms,
            needed_ms,
        } => format!(
            "leak: too short to judge ({} after the warm-up; a leak must rise for {})",
            since(judged_ms),
            since(needed_ms)
        ),
    }
}

/// The text report, every line starting `nvq run: ` or indented.
pub fn text(r: &RunReport) -> String {
    let mut out = format!("nvq run: {}\n", summary(r));
    if let Some(o) = &r.oom {
        let _ = writeln!(out, "nvq run: {}", peak_line(r));
        if let Some(f) = &o.fullest {
            let free = size(f.total.saturating_sub(f.used));
            let _ = if o.reasons.contains(&OomReason::GpuFull) {
                writeln!(
                    out,
                    "  out of memory: GPU {} had {} free at {} (full: within {} of its total), the job {}",
                    f.gpu,
                    free,
                    since(f.at_ms),
                    size(oom_margin(f.total)),
                    size(f.job)
                )
            } else {
                // Only PyTorch said so (a single allocation larger than
                // what was free, or its own limit): the GPU was not full.
                writeln!(
                    out,
                    "  out of memory: PyTorch reported it; GPU {} was not near full ({} free at its fullest, at {}), the job {}",
                    f.gpu,
                    free,
                    since(f.at_ms),
                    size(f.job)
                )
            };
        }
    }
    let _ = writeln!(
        out,
        "nvq run: {} ran {}, {} samples every {} ms (a spike shorter than that may fall between two)",
        super::printable(&r.command),
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
        if let Some(l) = r.leaks.get(&g.index) {
            let _ = writeln!(out, "    {}", leak_line(l));
        }
        if !g.others_at_peak.is_empty() {
            let others: Vec<String> = g
                .others_at_peak
                .iter()
                .map(|(pid, b)| format!("{} {}", who(*pid, r.others.get(pid)), size(*b)))
                .collect();
            let _ = writeln!(out, "    other processes then: {}", others.join(", "));
        }
    }
    for p in r.track.procs.values() {
        let cmd = super::printable(r.commands.get(&p.pid).map_or("", String::as_str));
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
    if let Some(dir) = &r.bundle {
        let _ = writeln!(out, "nvq run: bundle kept in {}", shown_path(dir));
    }
    for n in &r.notes {
        let _ = writeln!(out, "nvq run: note: {n}");
    }
    out
}

/// A path as the report shows it: hidden characters as `?`.
fn shown_path(p: &str) -> String {
    super::printable(p).into_owned()
}

/// One sample as the log's NDJSON lines (`--log`, the bundle's samples): per
/// GPU one line with `pid` null, then one per compute process; sizes in MiB
/// as nvq's loops print them, the time as `timestamp.epoch` (seconds).
pub fn log_lines(epoch_ms: u64, readings: &[GpuReading]) -> String {
    let epoch = format!("{:.3}", epoch_ms as f64 / 1000.0);
    let mib = |b: u64| b / (1 << 20);
    let lines: usize = readings.iter().map(|r| r.procs.len() + 1).sum();
    let mut out = String::with_capacity(lines * 160);
    // Each line's start and end, once per GPU (the time formatted once), and
    // the numbers without core::fmt: 72 lines a sample on 8 GPUs.
    let mut num = itoa::Buffer::new();
    let (mut head, mut tail) = (String::new(), String::new());
    for r in readings {
        head.clear();
        head.push_str("{\"timestamp.epoch\":");
        head.push_str(&epoch);
        head.push_str(",\"gpu_index\":");
        head.push_str(num.format(r.index));
        head.push(',');
        tail.clear();
        tail.push_str(",\"memory.used\":");
        tail.push_str(num.format(mib(r.used)));
        tail.push_str(",\"memory.total\":");
        tail.push_str(num.format(mib(r.total)));
        tail.push_str("}\n");
        out.push_str(&head);
        out.push_str("\"pid\":null,\"job\":null,\"used_memory\":null");
        out.push_str(&tail);
        for p in &r.procs {
            out.push_str(&head);
            out.push_str("\"pid\":");
            out.push_str(num.format(p.pid));
            out.push_str(if p.job {
                ",\"job\":true"
            } else {
                ",\"job\":false"
            });
            out.push_str(",\"used_memory\":");
            out.push_str(num.format(mib(p.bytes)));
            out.push_str(&tail);
        }
    }
    out
}

/// The log's first line: when the command started (`epoch_ms`), and what it is.
pub fn start_line(epoch_ms: u64, command: &str) -> String {
    let epoch = epoch_ms as f64 / 1000.0;
    let command = serde_json::to_string(command).unwrap_or_else(|_| "\"\"".into());
    format!("{{\"timestamp.epoch\":{epoch:.3},\"event\":\"start\",\"command\":{command}}}\n")
}

/// The log's last line: when the command ended (`epoch_ms`), and its status.
pub fn end_line(epoch_ms: u64, exit: i32) -> String {
    let epoch = epoch_ms as f64 / 1000.0;
    format!("{{\"timestamp.epoch\":{epoch:.3},\"event\":\"end\",\"exit\":{exit}}}\n")
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
    use crate::model::job::{JobTrack, ProcReading, TorchMem};

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

    #[test]
    fn the_out_of_memory_line_names_the_others_safely_and_the_leak_words() {
        use crate::model::job_verdict::{FullGpu, OtherProc};
        let gib = 1u64 << 30;
        let mut r = RunReport {
            exit: 1,
            ..Default::default()
        };
        r.track.add(
            1000,
            &[GpuReading {
                index: 0,
                total: 80 * gib,
                used: 79 * gib,
                procs: vec![ProcReading {
                    pid: 7,
                    bytes: 57 * gib,
                    job: true,
                    torch: None,
                    sm: None,
                }],
                accounting: None,
                memory_derived: false,
            }],
        );
        r.others.insert(
            9112,
            ProcName {
                name: Some("py\u{1b}[2Jthon3\u{202e}".into()),
                user: Some("bob".into()),
            },
        );
        r.oom = Some(Oom {
            exit: 1,
            reasons: vec![OomReason::GpuFull],
            fullest: Some(FullGpu {
                gpu: 0,
                at_ms: 900,
                used: 79 * gib + gib / 2,
                total: 80 * gib,
                job: 57 * gib,
                others: vec![OtherProc {
                    pid: 9112,
                    bytes: 22 * gib,
                    ..Default::default()
                }],
                others_bytes: 22 * gib,
                attributed: true,
            }),
        });
        assert_eq!(
            summary(&r),
            "exit 1 at 79.5 GiB of 80.0 GiB on GPU 0: out of memory; other processes held 22.0 GiB \
             (PID 9112 py?[2Jthon3?, user bob)"
        );
        let t = text(&r);
        assert!(
            t.contains("\nnvq run: peak 57.0 GiB of 80.0 GiB on GPU 0 at 1.0s; exit 1\n"),
            "{t}"
        );
        let v: serde_json::Value = serde_json::from_str(&json(&r)).unwrap();
        assert_eq!(v["oom"]["reasons"][0], "gpu_full");
        assert_eq!(v["others"]["9112"]["user"], "bob");
        // The JSON keeps the name exact (escaped).
        assert_eq!(v["others"]["9112"]["name"], "py\u{1b}[2Jthon3\u{202e}");
        // Leak words: the leak, else no leak, else too short.
        r.oom = None;
        r.leaks.insert(
            0,
            Leak::TooShort {
                judged_ms: 800,
                needed_ms: 300_000,
            },
        );
        assert!(summary(&r).ends_with("at 1.0s; too short to judge a leak; exit 1"));
        assert!(text(&r).contains(
            "leak: too short to judge (800ms after the warm-up; a leak must rise for 5m00s)"
        ));
        r.leaks.insert(
            1,
            Leak::NoLeak {
                warmup_ms: 1,
                judged_ms: 2,
            },
        );
        assert!(summary(&r).ends_with("; no leak; exit 1"));
        r.leaks.insert(
            2,
            Leak::Leak {
                rate_per_s: gib as f64 / 60.0,
                time_to_full_s: Some(4680.0),
                warmup_ms: 1,
                judged_ms: 2,
            },
        );
        assert!(
            summary(&r).ends_with("; leak +1.0 GiB/min on GPU 2, full in 1h 18m; exit 1"),
            "{}",
            summary(&r)
        );
        let lines = log_lines(
            1_796_610_093_431,
            &[GpuReading {
                index: 0,
                total: 80 * gib,
                used: 3 * gib,
                procs: vec![ProcReading {
                    pid: 7,
                    bytes: 2 * gib,
                    job: true,
                    torch: None,
                    sm: None,
                }],
                accounting: None,
                memory_derived: false,
            }],
        );
        assert_eq!(
            lines,
            "{\"timestamp.epoch\":1796610093.431,\"gpu_index\":0,\"pid\":null,\"job\":null,\"used_memory\":null,\"memory.used\":3072,\"memory.total\":81920}\n\
             {\"timestamp.epoch\":1796610093.431,\"gpu_index\":0,\"pid\":7,\"job\":true,\"used_memory\":2048,\"memory.used\":3072,\"memory.total\":81920}\n"
        );
    }
}
