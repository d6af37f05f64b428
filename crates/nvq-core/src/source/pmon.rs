//! `pmon`: one row per process per GPU per sample.
//!
//! The processes come from the compute, graphics and MPS lists (a PID in
//! both the compute and the graphics list is `C+G`); their utilization from
//! `nvmlDeviceGetProcessUtilization`, asking only for samples newer than the
//! newest one seen before, so a process without a sample in the window has
//! none. A GPU without processes gets one row of nothing (`-` in the text).
//! Where the driver has `nvmlDeviceGetRunningProcessDetailList`, the lists
//! come from it, with each process's protected memory (`ccpm`).

pub use super::monitor::Metric;
use super::monitor::{m, ProcessMetric, ProcessMetric as P, Table};
use super::procinfo::{read_again, stat_identity, HostProc};
use super::Target;
use crate::model::{NvmlCode, Row, Value};
use crate::nvml::raw::{self, ProcessList};
use crate::nvml::Session;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Every pmon metric, in nvidia-smi's order within its group: its column
/// (header, unit, help, `-s` group) is declared here, its value by
/// `cell`'s arm for its [`ProcessMetric`].
#[rustfmt::skip]
pub const METRICS: &[Metric] = &[
    m("sm", "%", Some("%"), 'u', "The process's share of SM time in the window.").per_process(P::Sm),
    m("mem", "%", Some("%"), 'u', "The process's share of memory read/write time in the window.").per_process(P::Mem),
    m("enc", "%", Some("%"), 'u', "The process's share of video encoder time.").per_process(P::Enc),
    m("dec", "%", Some("%"), 'u', "The process's share of video decoder time.").per_process(P::Dec),
    m("jpg", "%", Some("%"), 'u', "The process's share of JPEG decoder time.").per_process(P::Jpg),
    m("ofa", "%", Some("%"), 'u', "The process's share of optical flow accelerator time.").per_process(P::Ofa),
    m("fb", "MB", Some("MiB"), 'm', "Frame buffer memory the process holds.").per_process(P::Fb),
    m("ccpm", "MB", Some("MiB"), 'm', "Protected memory the process holds (confidential computing).")
        .per_process(P::Ccpm),
];

/// The first driver (major version) whose pmon has the `jpg` and `ofa`
/// columns and lists processes by PID: 545.23 has neither (it lists them as
/// NVML does), 550.54 both.
pub const NEW_LAYOUT_FROM: u32 = 550;

/// pmon's metrics and `-s` groups (nvidia-smi's default: `u`).
pub const TABLE: Table = Table {
    metrics: METRICS,
    groups: "um",
    default_groups: "u",
};

/// The name pmon shows: the last component of the path NVML gives, with
/// either kind of separator (Linux paths, Windows paths).
pub fn short_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

/// One process on one GPU in one sample, as [`PmonReader::processes`]
/// found it.
#[derive(Clone, Debug)]
pub struct ProcRead {
    /// Its PID.
    pub pid: u32,
    /// `C` compute, `G` graphics, `M` MPS, or two of them (`C+G`).
    pub kind: &'static str,
    /// GPU memory it uses, bytes (`None`: the list did not say).
    pub used_memory: Option<u64>,
    /// Confidential-computing protected memory, bytes (`None`: the driver
    /// does not report it).
    pub cc_protected: Option<u64>,
    /// Its newest utilization sample in the window (`None`: none).
    pub util: Option<Sample>,
    /// Its name (the executable's file name), or why NVML gave none.
    pub name: Result<Arc<str>, NvmlCode>,
}

impl ProcRead {
    /// Its value of `metric`, as pmon's row shows it.
    pub fn metric(&self, metric: ProcessMetric) -> Value {
        cell(metric, self)
    }
}

/// A process name read before: the name and the identity (`/proc/PID/stat`'s
/// command name and start time) of the process that had the PID then.
struct KnownName {
    identity: Option<(String, u64)>,
    name: Arc<str>,
    /// That process's `/proc/PID/stat`, kept open while the PID is listed
    /// (at most [`HELD_STATS`] per reader): checking the identity again is
    /// one read, not an open, a read and a close, each sample.
    stat: Option<std::fs::File>,
    /// When `/proc` was last asked about a process it did not show (it is
    /// asked again after [`ABSENT_RECHECK`], not at every sample).
    checked: Instant,
}

/// How often `/proc` is asked again about a listed process it did not
/// show: one in another PID namespace (nvq in a container), which never
/// shows, each look a failed open and path walk in procfs (a twentieth of
/// `nvq top`'s time at 100 ms when every look was a second apart).
pub const ABSENT_RECHECK: Duration = Duration::from_secs(10);

/// How long an empty graphics or MPS client list is taken as still empty by
/// a reader made [`PmonReader::with_empty_recheck`] (`nvq top`): a compute
/// server's GPU always answers an empty graphics list, one without an MPS
/// server an empty MPS list, and asking is an NVML call per GPU per sample.
/// A list with processes is read every sample (their memory, a leak); the
/// compute list always is.
pub const EMPTY_RECHECK: Duration = Duration::from_secs(1);

/// The most `/proc/PID/stat` files one reader keeps open (beyond it, the
/// file is opened again for each check).
const HELD_STATS: usize = 64;

/// One utilization sample of a process.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// When NVML took it, microseconds since the epoch.
    pub timestamp: u64,
    /// Its share of SM time in the sample's period, percent.
    pub sm: u32,
    /// Its share of memory read/write time, percent.
    pub mem: u32,
    /// Its share of the video encoder, percent.
    pub enc: u32,
    /// Its share of the video decoder, percent.
    pub dec: u32,
    /// Its share of the JPEG decoder, percent; `None` from
    /// `nvmlDeviceGetProcessUtilization`, which lacks it.
    pub jpg: Option<u32>,
    /// Its share of the optical flow accelerator, percent (`None` likewise).
    pub ofa: Option<u32>,
}

/// Reads one GPU's pmon rows; remembers the newest sample it has seen, so
/// each sample covers the time since the previous one, and the names of the
/// processes it has listed, so that a process's name is read once.
///
/// A PID can be reused by another program. A name is forgotten as soon as
/// its PID leaves the GPU's process lists, and, where nvq can read the
/// host's `/proc` (see `procinfo`), when the process behind the PID is no
/// longer the one whose name was read (another command name or start time
/// in `/proc/PID/stat`), so a PID reused between two samples shows its new
/// name too.
pub struct PmonReader {
    metrics: Vec<Metric>,
    util: UtilSamples,
    /// `nvmlDeviceGetRunningProcessDetailList` answered (or was not tried
    /// yet); after FUNCTION_NOT_FOUND or NOT_SUPPORTED the plain process
    /// lists are read instead, without asking again.
    details: bool,
    names: super::PidMap<KnownName>,
    /// The host's procfs, looked up on the first sample.
    host: Option<Option<HostProc>>,
    /// Rows carry the sample's timestamp (`top` shows none).
    timestamps: bool,
    /// The room for each process list (compute, graphics, MPS): the size
    /// last read, with headroom. The first
    /// call of each read passes a buffer this big, so a list that still
    /// fits is one NVML call, not a count and then the list.
    rooms: [u32; 3],
    /// Where each PID is in the sample being read (kept for its room).
    at: super::PidMap<usize>,
    /// The graphics and MPS client lists are asked for again only
    /// [`EMPTY_RECHECK`] after they were empty (`nvq top`; pmon reads them
    /// every sample).
    empty_recheck: bool,
    /// When the graphics and the MPS client list were last read empty.
    empty_at: [Option<Instant>; 2],
    /// How long the utilization samples read are used (`nvq top`: a
    /// second; pmon reads them every sample), and until when those kept
    /// in `util_kept` stand.
    util_every: Duration,
    util_until: Option<Instant>,
    util_kept: Vec<(u32, Sample)>,
}

/// `buf` made room for a `/proc/PID/stat` line (allocated when first needed).
fn stat_room(buf: &mut Vec<u8>) -> &mut [u8] {
    buf.resize(2048, 0);
    buf
}

const MIB: u64 = 1024 * 1024;

impl PmonReader {
    /// A reader of the per-process metrics `metrics`, rows with timestamps, as `nvidia-smi pmon` prints them.
    pub fn new(metrics: Vec<Metric>) -> Self {
        PmonReader {
            metrics,
            util: UtilSamples::default(),
            details: true,
            names: super::PidMap::default(),
            host: None,
            timestamps: true,
            rooms: [raw::list_room(0); 3],
            at: super::PidMap::default(),
            empty_recheck: false,
            empty_at: [None; 2],
            util_every: Duration::ZERO,
            util_until: None,
            util_kept: Vec::new(),
        }
    }

    /// The utilization samples read once per `every` (their newest for
    /// each process, kept in between), not every sample.
    pub fn with_util_every(mut self, every: Duration) -> Self {
        self.util_every = every;
        self
    }

    /// Rows without the sample's timestamp (not formatted at all).
    pub fn without_timestamps(mut self) -> Self {
        self.timestamps = false;
        self
    }

    /// An empty graphics or MPS client list taken as still empty for
    /// [`EMPTY_RECHECK`].
    pub fn with_empty_recheck(mut self) -> Self {
        self.empty_recheck = true;
        self
    }

    /// The list in `slot` of [`Self::empty_at`] was read empty less than
    /// [`EMPTY_RECHECK`] ago (by a reader that keeps it so).
    fn known_empty(&self, slot: usize, now: Instant) -> bool {
        self.empty_recheck
            && self
                .empty_at
                .get(slot)
                .copied()
                .flatten()
                .is_some_and(|t| now.saturating_duration_since(t) < EMPTY_RECHECK)
    }

    /// One process list: with each process's protected memory where the
    /// driver has `nvmlDeviceGetRunningProcessDetailList`, else without.
    fn list(&mut self, dev: &raw::Dev<'_>, which: ProcessList) -> Result<Vec<raw::Proc>, NvmlCode> {
        let slot = match which {
            ProcessList::Compute => 0,
            ProcessList::Graphics => 1,
            ProcessList::MpsCompute => 2,
        };
        let room = self.rooms.get(slot).copied().unwrap_or(0);
        let list = self.list_in(dev, which, room);
        if let (Ok(l), Some(r)) = (&list, self.rooms.get_mut(slot)) {
            *r = raw::list_room(u32::try_from(l.len()).unwrap_or(u32::MAX));
        }
        list
    }

    /// [`Self::list`], the first call with a buffer of `room` entries.
    fn list_in(
        &mut self,
        dev: &raw::Dev<'_>,
        which: ProcessList,
        room: u32,
    ) -> Result<Vec<raw::Proc>, NvmlCode> {
        if self.details {
            match raw::process_details(dev, which, room) {
                Err(code)
                    if code == NvmlCode::FUNCTION_NOT_FOUND || code == NvmlCode::NOT_SUPPORTED =>
                {
                    self.details = false;
                }
                r => return r,
            }
        }
        raw::processes_in(dev, which, room)
    }

    /// The name of process `pid`: the one read before while it is the same
    /// process, else NVML's (remembered when NVML gives one); `now`: the
    /// sample's time.
    fn name(&mut self, session: &Session, pid: u32, now: Instant) -> Result<Arc<str>, NvmlCode> {
        let host = self.host.get_or_insert_with(HostProc::detect).as_ref();
        // Not zeroed unless a stat file is read (a known name mostly is not).
        let mut buf = Vec::new();
        if let Some(known) = self.names.get(&pid) {
            let absent = known.identity.is_none() && known.stat.is_none();
            if absent && now.saturating_duration_since(known.checked) < ABSENT_RECHECK {
                return Ok(Arc::clone(&known.name));
            }
            let identity = match &known.stat {
                Some(f) => read_again(f, stat_room(&mut buf)).and_then(stat_identity),
                None => host
                    .and_then(|h| h.read(pid, "stat").ok())
                    .and_then(|stat| stat_identity(&stat)),
            };
            if known.identity == identity {
                let name = Arc::clone(&known.name);
                if let Some(k) = self.names.get_mut(&pid) {
                    k.checked = now;
                }
                return Ok(name);
            }
        }
        let held = self.names.values().filter(|k| k.stat.is_some()).count();
        let stat = host
            .filter(|_| held < HELD_STATS)
            .and_then(|h| h.open_file(pid, "stat").ok());
        let identity = match &stat {
            Some(f) => read_again(f, stat_room(&mut buf)).and_then(stat_identity),
            None => host
                .and_then(|h| h.read(pid, "stat").ok())
                .and_then(|s| stat_identity(&s)),
        };
        let name = raw::process_name(session, pid)?;
        let name: Arc<str> = short_name(&name).into();
        self.names.insert(
            pid,
            KnownName {
                stat: stat.filter(|_| identity.is_some()),
                identity,
                name: Arc::clone(&name),
                checked: now,
            },
        );
        Ok(name)
    }

    /// The processes of one sample, in the order pmon shows them, each with
    /// its lists' facts, its newest utilization sample and its name; `Err`
    /// when the GPU has none (NOT_FOUND) or its compute list failed (why).
    pub fn processes(
        &mut self,
        session: &Session,
        c: &super::gpu::GpuCtx<'_>,
    ) -> Result<Vec<ProcRead>, NvmlCode> {
        let dev = c.raw();
        // In the order NVML lists them (compute, graphics, MPS).
        let mut procs: Vec<ProcRead> = Vec::with_capacity(8);
        let mut at = std::mem::take(&mut self.at);
        at.clear();
        let mut failure = None;
        let now = Instant::now();
        for (list, kind) in [
            (ProcessList::Compute, "C"),
            (ProcessList::Graphics, "G"),
            (ProcessList::MpsCompute, "M"),
        ] {
            // The graphics and MPS lists' slots in `empty_at`.
            let slot = match list {
                ProcessList::Compute => None,
                ProcessList::Graphics => Some(0),
                ProcessList::MpsCompute => Some(1),
            };
            if slot.is_some_and(|i| self.known_empty(i, now)) {
                continue;
            }
            let read = self.list(&dev, list);
            if let Some(empty) = slot.and_then(|i| self.empty_at.get_mut(i)) {
                *empty = match &read {
                    Ok(l) if l.is_empty() => Some(now),
                    _ => None,
                };
            }
            match read {
                Ok(l) => {
                    for p in l {
                        match at.get(&p.pid).and_then(|&i| procs.get_mut(i)) {
                            Some(e) => {
                                e.kind = merge(e.kind, kind);
                                e.used_memory = e.used_memory.or(p.used_memory);
                                e.cc_protected = e.cc_protected.or(p.cc_protected_memory);
                            }
                            None => {
                                at.insert(p.pid, procs.len());
                                procs.push(ProcRead {
                                    pid: p.pid,
                                    kind,
                                    used_memory: p.used_memory,
                                    cc_protected: p.cc_protected_memory,
                                    util: None,
                                    name: Err(NvmlCode::UNKNOWN),
                                });
                            }
                        }
                    }
                }
                Err(code) if kind == "C" => failure = Some(code),
                Err(_) => {}
            }
        }
        if failure.is_none() {
            // Forget the names of processes gone (not when the list failed:
            // they may still be there).
            self.names.retain(|pid, _| at.contains_key(pid));
        }
        self.at = at;
        if procs.is_empty() {
            return Err(failure.unwrap_or(NvmlCode::NOT_FOUND));
        }
        let due = self.util_every.is_zero() || self.util_until.map_or(true, |u| now >= u);
        let samples = if due {
            self.util_until = Some(now + self.util_every);
            self.util.read(c)
        } else {
            std::mem::take(&mut self.util_kept)
        };
        // Since r550 nvidia-smi sorts the rows by PID.
        if session.driver_major() >= NEW_LAYOUT_FROM {
            procs.sort_by_key(|p| p.pid);
        }
        for p in &mut procs {
            p.util = samples
                .binary_search_by_key(&p.pid, |(pid, _)| *pid)
                .ok()
                .and_then(|i| samples.get(i))
                .map(|(_, s)| *s);
            p.name = self.name(session, p.pid, now);
        }
        if !self.util_every.is_zero() {
            self.util_kept = samples;
        }
        Ok(procs)
    }

    /// The rows of one sample: GPU index, PID, type, the metrics, the
    /// command name; one row of failures when the GPU has no process.
    pub fn read(&mut self, session: &Session, target: &Target, count: u32) -> Vec<Row> {
        let c = target.context(session, count);
        let procs = self.processes(session, &c);
        let ident = target.ident(&c);
        let stamp = self.timestamps.then(|| c.timestamp().to_string());
        let make = |cells: Vec<Value>, pid: Option<u32>| {
            let mut row = Row::new(cells);
            row.gpu = Some(ident.clone());
            row.timestamp.clone_from(&stamp);
            if let Some(pid) = pid {
                row.labels.push(("pid", pid.to_string()));
            }
            row
        };
        let procs = match procs {
            Ok(procs) => procs,
            Err(code) => {
                let mut cells = vec![Value::Int(i64::from(target.index))];
                cells.extend((0..self.metrics.len() + 3).map(|_| Value::err(code)));
                return vec![make(cells, None)];
            }
        };
        let mut rows = Vec::with_capacity(procs.len());
        for p in procs {
            let mut cells = Vec::with_capacity(self.metrics.len() + 4);
            cells.extend([
                Value::Int(i64::from(target.index)),
                Value::Int(i64::from(p.pid)),
                Value::text(p.kind),
            ]);
            for m in &self.metrics {
                cells.push(match m.process() {
                    Some(metric) => p.metric(metric),
                    None => Value::err(NvmlCode::NOT_SUPPORTED),
                });
            }
            cells.push(match &p.name {
                Ok(name) => Value::text(&**name),
                Err(code) => Value::err(*code),
            });
            rows.push(make(cells, Some(p.pid)));
        }
        rows
    }
}

/// The per-process utilization samples of one GPU, read so that each read
/// covers the time since the one before: NVML is asked only for samples
/// newer than the newest seen (pmon, `nvq top`, `nvq run`).
#[derive(Debug)]
pub struct UtilSamples {
    last_seen: u64,
    /// The room for the samples: the count last read, with headroom.
    room: u32,
}

impl Default for UtilSamples {
    fn default() -> Self {
        UtilSamples {
            last_seen: 0,
            room: raw::list_room(0),
        }
    }
}

impl UtilSamples {
    /// Each process's newest sample newer than the last one seen:
    /// `nvmlDeviceGetProcessesUtilizationInfo` (all six engines) where the
    /// driver has it, else `nvmlDeviceGetProcessUtilization`. Sorted by PID.
    pub fn read(&mut self, c: &super::gpu::GpuCtx) -> Vec<(u32, Sample)> {
        let all = match raw::processes_utilization(&c.raw(), self.last_seen, self.room) {
            Ok(list) => {
                self.room = raw::list_room(u32::try_from(list.len()).unwrap_or(u32::MAX));
                Ok(list
                    .into_iter()
                    .map(|s| {
                        let sample = Sample {
                            timestamp: s.timeStamp,
                            sm: s.smUtil,
                            mem: s.memUtil,
                            enc: s.encUtil,
                            dec: s.decUtil,
                            jpg: Some(s.jpgUtil),
                            ofa: Some(s.ofaUtil),
                        };
                        (s.pid, sample)
                    })
                    .collect())
            }
            Err(code)
                if code == NvmlCode::FUNCTION_NOT_FOUND || code == NvmlCode::NOT_SUPPORTED =>
            {
                super::gpu::read::process_utilization(c, self.last_seen).map(|list| {
                    list.into_iter()
                        .map(|s| {
                            let sample = Sample {
                                timestamp: s.timestamp,
                                sm: s.sm_util,
                                mem: s.mem_util,
                                enc: s.enc_util,
                                dec: s.dec_util,
                                jpg: None,
                                ofa: None,
                            };
                            (s.pid, sample)
                        })
                        .collect::<Vec<_>>()
                })
            }
            Err(code) => Err(code),
        };
        // NOT_FOUND: no sample in the window; other failures: none either.
        let mut all = all.unwrap_or_default();
        for (_, new) in &all {
            self.last_seen = self.last_seen.max(new.timestamp);
        }
        // Each PID's newest sample (of two as new, the one listed later), by PID.
        all.sort_by_key(|(pid, s)| (*pid, s.timestamp));
        all.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                *kept = *later;
            }
            same
        });
        all
    }
}

/// The type of a PID found in two lists.
fn merge(a: &'static str, b: &'static str) -> &'static str {
    match (a, b) {
        _ if a == b => a,
        ("C", "G") | ("G", "C") | ("C+G", _) | (_, "C+G") => "C+G",
        ("M", "G") | ("G", "M") => "M+G",
        _ => a,
    }
}

/// The cell of `metric` for process `p`: a share
/// without a sample in the window is NOT_FOUND, one the driver's call lacks
/// (`jpg`, `ofa` before `nvmlDeviceGetProcessesUtilizationInfo`) and
/// memory the list did not give are NOT_SUPPORTED.
fn cell(metric: ProcessMetric, p: &ProcRead) -> Value {
    let share = |of: fn(&Sample) -> Option<u32>| match p.util.map(|s| of(&s)) {
        Some(Some(v)) => Value::Int(i64::from(v)),
        Some(None) => Value::err(NvmlCode::NOT_SUPPORTED),
        None => Value::err(NvmlCode::NOT_FOUND),
    };
    let mib = |bytes: Option<u64>| match bytes {
        Some(b) => Value::count(b / MIB),
        None => Value::err(NvmlCode::NOT_SUPPORTED),
    };
    match metric {
        P::Sm => share(|s| Some(s.sm)),
        P::Mem => share(|s| Some(s.mem)),
        P::Enc => share(|s| Some(s.enc)),
        P::Dec => share(|s| Some(s.dec)),
        P::Jpg => share(|s| s.jpg),
        P::Ofa => share(|s| s.ofa),
        P::Fb => mib(p.used_memory),
        P::Ccpm => mib(p.cc_protected),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_groups() {
        assert_eq!(short_name("/usr/bin/gnome-shell"), "gnome-shell");
        assert_eq!(short_name("C:\\Windows\\System32\\dwm.exe"), "dwm.exe");
        assert_eq!(short_name("python3"), "python3");
        assert_eq!(TABLE.select("um").unwrap().len(), 8);
        assert_eq!(TABLE.select("m").unwrap()[0].name, "fb");
        assert_eq!(TABLE.select("x"), Err('x'));
        assert_eq!(merge("C", "G"), "C+G");
    }

    /// Each row of the table is one per-process metric, and no two rows the same.
    #[test]
    fn every_pmon_column_is_one_process_metric() {
        let metrics: Vec<ProcessMetric> = METRICS.iter().filter_map(Metric::process).collect();
        assert_eq!(metrics.len(), METRICS.len());
        for (i, a) in metrics.iter().enumerate() {
            assert!(!metrics[..i].contains(a), "{a:?} twice");
        }
    }
}
