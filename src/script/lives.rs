//! Which process a (GPU, PID) pair is, sample after sample: the key of its
//! series in the history, so that a PID the kernel hands to a new process
//! starts a new series.
//!
//! A process is known by its start time in `/proc/PID/stat` (clock ticks
//! since boot) where nvq can read the host's `/proc` (`source::procinfo`).
//! Where it cannot (nvq in a container without the host's procfs, or a
//! simulated GPU whose PIDs are not this machine's), a PID is a new process
//! when it comes back after more than [`ABSENT_SAMPLES`] samples away, or
//! under another command name: the rule `nvq plot` applies to a log. Such a
//! process's `start` is then nvq's count of the PID's lives (1, 2, ...).

use nvq_core::model::history::SeriesKey;
use nvq_core::source::procinfo::{stat_identity, HostProc};
use std::collections::BTreeMap;

/// A PID missing from more samples than this, then back, is a new process.
pub const ABSENT_SAMPLES: u64 = 3;

/// Forget the PIDs not seen for this many samples once there are more than [`MAX_TRACKED`].
const FORGET_AFTER: u64 = 64;
const MAX_TRACKED: usize = 4096;

#[derive(Debug, Clone)]
struct Life {
    key: SeriesKey,
    /// The start time /proc gave, if any.
    proc_start: Option<u64>,
    name: Option<String>,
    /// The sample it was last seen in.
    seen: u64,
    lives: u64,
}

/// The processes seen so far, by (GPU index, PID).
#[derive(Debug, Default)]
pub struct Lives {
    by_pid: BTreeMap<(u32, u32), Life>,
    /// The host procfs (looked up on first use; `None` inside: not readable).
    host: Option<Option<HostProc>>,
    sample: u64,
}

impl Clone for Lives {
    fn clone(&self) -> Self {
        Lives {
            by_pid: self.by_pid.clone(),
            host: None,
            sample: self.sample,
        }
    }
}

impl Lives {
    /// Start the next sample.
    pub fn next_sample(&mut self) {
        self.sample += 1;
        if self.by_pid.len() > MAX_TRACKED {
            let now = self.sample;
            self.by_pid
                .retain(|_, l| now.saturating_sub(l.seen) <= FORGET_AFTER);
        }
    }

    /// The series key of process `pid` on GPU `gpu` (whose UUID is `uuid`) seen in this sample, under command
    /// `name` when the row shows it.
    pub fn key(&mut self, gpu: u32, uuid: &str, pid: u32, name: Option<&str>) -> &SeriesKey {
        let proc_start = self.proc_start(pid);
        let now = self.sample;
        let fresh = |start: u64| Life {
            key: SeriesKey::Process {
                gpu_uuid: uuid.to_string(),
                pid,
                start,
            },
            proc_start,
            name: name.map(str::to_string),
            seen: now,
            lives: 1,
        };
        let life = self
            .by_pid
            .entry((gpu, pid))
            .or_insert_with(|| fresh(proc_start.unwrap_or(1)));
        let away = now.saturating_sub(life.seen).saturating_sub(1);
        let other_start = matches!((proc_start, life.proc_start), (Some(a), Some(b)) if a != b);
        let other_name = matches!((name, life.name.as_deref()), (Some(a), Some(b)) if a != b);
        let other_gpu = life.key.gpu_uuid() != uuid;
        if life.seen != now && (away > ABSENT_SAMPLES || other_start || other_name || other_gpu) {
            let lives = life.lives + 1;
            // A start time /proc tells apart; else the count of lives.
            let start = match proc_start {
                Some(s) if other_start => s,
                _ => lives,
            };
            *life = Life {
                lives,
                ..fresh(start)
            };
        }
        life.seen = now;
        if life.name.is_none() {
            life.name = name.map(str::to_string);
        }
        &life.key
    }

    fn proc_start(&mut self, pid: u32) -> Option<u64> {
        let host = self.host.get_or_insert_with(HostProc::detect).as_ref()?;
        let stat = host.read(pid, "stat").ok()?;
        stat_identity(&stat).map(|(_, start)| start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(k: &SeriesKey) -> u64 {
        match k {
            SeriesKey::Process { start, .. } => *start,
            SeriesKey::Gpu { .. } => u64::MAX,
        }
    }

    /// A PID no process on this machine has (above the kernel's PID limit), so /proc cannot tell.
    const PID: u32 = 4_194_305;

    #[test]
    fn a_pid_back_after_a_long_absence_or_under_another_name_is_a_new_process() {
        let mut l = Lives::default();
        let first = start(l.key(0, "GPU-a", PID, Some("train")));
        l.next_sample();
        assert_eq!(start(l.key(0, "GPU-a", PID, Some("train"))), first);
        // Away three samples: the same process.
        for _ in 0..4 {
            l.next_sample();
        }
        assert_eq!(start(l.key(0, "GPU-a", PID, None)), first);
        // Away four: a new one.
        for _ in 0..5 {
            l.next_sample();
        }
        let second = start(l.key(0, "GPU-a", PID, Some("train")));
        assert_ne!(second, first);
        // Another name at once: a third.
        l.next_sample();
        let third = start(l.key(0, "GPU-a", PID, Some("eval")));
        assert!(third != second && third != first);
        // Two rows of one sample are the same process whatever they show.
        assert_eq!(start(l.key(0, "GPU-a", PID, Some("other"))), third);
        // The same PID on another GPU is apart.
        let k = l.key(1, "GPU-b", PID, Some("eval")).clone();
        assert_eq!(k.gpu_uuid(), "GPU-b");
    }
}
