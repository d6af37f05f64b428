//! `nvq top`'s reader: one GPU's sample (its numbers, MIG devices and
//! processes) as `model::top` data.
//!
//! The GPU's numbers come from the `--query-gpu` getters (by field name,
//! through the sample's [`GpuCtx`], so each NVML struct is read once); its
//! processes from pmon's reader ([`PmonReader`]: the compute, graphics and
//! MPS lists, per-process SM/encoder/decoder samples, names read once per
//! process); what the host knows of each process (user, command line,
//! container, CPU, resident memory) from its `/proc` ([`procinfo`]).
//!
//! A GPU's MIG layout (which MIG devices it has, their profiles, UUIDs and
//! instance ids) is listed at most once per [`MIG_RECHECK`], and at once
//! when a MIG device's read fails; each sample reads only the memory of
//! the MIG devices listed.

use super::gpu::GpuCtx;
use super::monitor::ProcessMetric;
use super::pmon::{self, PmonReader};
use super::procinfo::{self, HostProc};
use super::target::Handle;
use super::Target;
use crate::model::top::{GpuSnap, Health, MigSnap, ProcSnap};
use crate::model::{Fact, NvmlCode, Value};
use crate::nvml::{raw, Session};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The catalogue facts `top` shows, in the order [`TopReader::read`] puts
/// them into a [`GpuSnap`] (the PCIe rates last, in KB/s).
const FACTS: [Fact; 10] = [
    Fact::UtilizationGpu,
    Fact::UtilizationMemory,
    Fact::TemperatureGpu,
    Fact::PowerDraw,
    Fact::PowerLimit,
    Fact::ClocksCurrentSm,
    Fact::ClocksCurrentMemory,
    Fact::FanSpeed,
    Fact::PcieRxThroughput,
    Fact::PcieTxThroughput,
];

/// How long each of [`FACTS`] is shown before it is read again: every
/// sample, but once per [`SLOW_EVERY`] the power limit, which only an
/// administrator changes, and the PCIe rates: NVML counts each over 20 ms,
/// and each call holds the caller (and the driver) for that long, so that
/// at 100 ms a GPU's rx and tx would take 40% of every sample.
const EVERY: [Duration; FACTS.len()] = {
    let mut every = [Duration::ZERO; FACTS.len()];
    let mut i = 0;
    while i < FACTS.len() {
        if matches!(
            FACTS[i],
            Fact::PowerLimit | Fact::PcieRxThroughput | Fact::PcieTxThroughput
        ) {
            every[i] = SLOW_EVERY;
        }
        i += 1;
    }
    every
};

/// How often a fact read less often than every sample ([`EVERY`]) is read.
pub const SLOW_EVERY: Duration = Duration::from_secs(1);

/// How often the processes' SM, encoder and decoder shares are read (each
/// process's newest sample since the last read; shown until the next).
/// The list of processes and their memory are read every sample: a leak
/// shows as soon as it grows. The shares are the single dearest read of a
/// sample (a list of samples per GPU, sorted), and at 100 ms a process's
/// share read ten times a second says little more than once.
pub const PROCESS_UTIL_EVERY: Duration = SLOW_EVERY;

/// How long a fact that NVML does not support on a GPU (NOT_SUPPORTED: a
/// GPU without fans, an older GPU without a counter) is not asked for again.
pub const UNSUPPORTED_RECHECK: Duration = Duration::from_secs(1);

/// The pmon metrics `top` shows, in the order its rows carry them.
const PMON_METRICS: [ProcessMetric; 4] = [
    ProcessMetric::Sm,
    ProcessMetric::Enc,
    ProcessMetric::Dec,
    ProcessMetric::Fb,
];

/// What `/proc` said about a process the first time it was seen (it does
/// not change while the process lives).
struct Known {
    /// `/proc` shows the process (else nothing else here is known).
    shown: bool,
    start: u64,
    user: Option<Arc<str>>,
    command: Option<Arc<str>>,
    container: Option<Arc<str>>,
    /// CPU ticks (user + system) and when they were read.
    ticks: Option<(u64, Instant)>,
    /// When `/proc` was last read for it.
    read_at: Instant,
    cpu_pct: Option<f64>,
    host_mem: Option<u64>,
    /// The sample that last listed the process (the others are forgotten).
    seen: Instant,
}

/// Reads one GPU, sample after sample; keeps pmon's state and each
/// process's previous CPU time (for its CPU share).
pub struct TopReader {
    pmon: PmonReader,
    host: Option<Option<HostProc>>,
    known: super::PidMap<Known>,
    /// Clock ticks per second (`/proc/PID/stat`'s unit).
    hz: f64,
    /// The GPU's MIG layout as last listed (none yet, or it must be listed again).
    mig: Option<MigLayout>,
    /// Each of [`FACTS`] not to be asked for again yet: its value (none
    /// after NOT_SUPPORTED) and until when it stands ([`EVERY`],
    /// [`UNSUPPORTED_RECHECK`]).
    kept: [Option<(Option<f64>, Instant)>; FACTS.len()],
    /// The GPU's UUID and name as last read.
    who: Option<(Arc<str>, Arc<str>)>,
}

/// How long a GPU's MIG layout is kept before it is listed again (MIG mode,
/// the MIG devices, their profiles, UUIDs and instance ids): a layout
/// changed by `nvidia-smi mig` shows within this time, a MIG device that
/// fails at once.
pub const MIG_RECHECK: Duration = Duration::from_secs(1);

/// A GPU's MIG devices as listed at `at` (none: MIG is off).
struct MigLayout {
    devices: Vec<MigDev>,
    at: Instant,
    /// Every read of the listing answered (else it is listed again at the next sample).
    whole: bool,
}

/// A MIG device as listed: its handle and what does not change while it exists.
struct MigDev {
    handle: Handle,
    profile: Arc<str>,
    uuid: Arc<str>,
    gpu_instance: Option<u32>,
    compute_instance: Option<u32>,
}

impl Default for TopReader {
    fn default() -> Self {
        Self::new()
    }
}

impl TopReader {
    /// A reader of `nvq top`'s process columns (a subset of pmon's), without timestamps.
    pub fn new() -> Self {
        let metrics = pmon::METRICS
            .iter()
            .filter(|m| m.process().is_some_and(|p| PMON_METRICS.contains(&p)))
            .cloned()
            .collect();
        TopReader {
            pmon: PmonReader::new(metrics)
                .without_timestamps()
                .with_empty_recheck()
                .with_util_every(PROCESS_UTIL_EVERY),
            host: None,
            known: super::PidMap::default(),
            hz: clock_ticks_per_second(),
            mig: None,
            kept: [None; FACTS.len()],
            who: None,
        }
    }

    /// One sample of this GPU and its processes.
    pub fn read(
        &mut self,
        session: &Session,
        target: &Target,
        count: u32,
    ) -> (GpuSnap, Vec<ProcSnap>) {
        // A unified-memory GPU's memory is the system's, marked.
        let c = target.context(session, count).deriving_memory();
        let ident = target.ident(&c);
        let mem = c.memory().map(|m| (m.used, m.total));
        let health = match mem {
            Err(code) if is_lost(code) => Health::Lost(code),
            _ => Health::Fresh,
        };
        // The same strings as the sample before, shared (not copied) while
        // NVML says the same.
        let (uuid, name) = match &self.who {
            Some((u, n)) if **u == *ident.uuid && **n == *ident.name => {
                (Arc::clone(u), Arc::clone(n))
            }
            _ => {
                let (u, n) = (
                    Arc::<str>::from(ident.uuid.as_str()),
                    Arc::<str>::from(ident.name.as_str()),
                );
                self.who = Some((Arc::clone(&u), Arc::clone(&n)));
                (u, n)
            }
        };
        let mut gpu = GpuSnap::unknown(target.index, uuid, name, health);
        if health != Health::Fresh {
            self.mig = None;
            return (gpu, Vec::new());
        }
        if let Ok((used, total)) = mem {
            gpu.mem_used = Some(used);
            gpu.mem_total = Some(total);
            gpu.mem_derived = c.memory_derived();
        }
        // One clock read for the sample's "is it time to read this again".
        let now = Instant::now();
        let n = self.numbers(&c, now);
        let kbs = |v: Option<f64>| v.map(|kb| kb * 1024.0);
        [
            gpu.util_gpu,
            gpu.util_mem,
            gpu.temp_c,
            gpu.power_w,
            gpu.power_limit_w,
            gpu.clock_sm_mhz,
            gpu.clock_mem_mhz,
            gpu.fan_pct,
            gpu.pcie_rx,
            gpu.pcie_tx,
        ] = [
            n[0],
            n[1],
            n[2],
            n[3],
            n[4],
            n[5],
            n[6],
            n[7],
            kbs(n[8]),
            kbs(n[9]),
        ];
        gpu.mig = self.mig(session, &c);
        let procs = self.processes(session, &c, &gpu, now);
        (gpu, procs)
    }

    /// The values of [`FACTS`]; a fact the GPU answered NOT_SUPPORTED for
    /// less than [`UNSUPPORTED_RECHECK`] ago is not asked for (it has none),
    /// nor one read less than its [`EVERY`] ago (its value is kept).
    fn numbers(&mut self, c: &GpuCtx<'_>, now: Instant) -> [Option<f64>; FACTS.len()] {
        let mut out = [None; FACTS.len()];
        let state = self.kept.iter_mut().zip(EVERY);
        for ((slot, f), (kept, every)) in out.iter_mut().zip(FACTS).zip(state) {
            if let Some((v, until)) = *kept {
                if now < until {
                    *slot = v;
                    continue;
                }
            }
            let v = c.fact(f);
            *slot = v.as_f64();
            // Another error is asked for again at the next sample.
            *kept = match &v {
                Value::Error(t) if t.code == NvmlCode::NOT_SUPPORTED => {
                    Some((None, now + UNSUPPORTED_RECHECK))
                }
                _ if !every.is_zero() && slot.is_some() => Some((*slot, now + every)),
                _ => None,
            };
        }
        out
    }

    fn processes(
        &mut self,
        session: &Session,
        c: &GpuCtx<'_>,
        gpu: &GpuSnap,
        now: Instant,
    ) -> Vec<ProcSnap> {
        // A GPU without processes, or whose list failed, shows none.
        let procs = self.pmon.processes(session, c).unwrap_or_default();
        let host = self.host.take().unwrap_or_else(HostProc::detect);
        let mut out = Vec::with_capacity(procs.len());
        for r in procs {
            let mut p = ProcSnap {
                host: Arc::default(),
                gpu: gpu.index,
                gpu_uuid: Arc::clone(&gpu.uuid),
                pid: r.pid,
                kind: r.kind,
                sm: r.util.map(|u| f64::from(u.sm)),
                enc: r.util.map(|u| f64::from(u.enc)),
                dec: r.util.map(|u| f64::from(u.dec)),
                gpu_mem: r.used_memory,
                command: r.name.unwrap_or_default(),
                ..ProcSnap::default()
            };
            if let Some(h) = &host {
                self.host_facts(h, &mut p, now);
            }
            out.push(p);
        }
        self.host = Some(host);
        // Each process listed now was marked seen at `now`.
        self.known.retain(|_, k| k.seen == now);
        out
    }

    /// Fill in what the host's `/proc` says about `p`, read at most once
    /// per [`HOST_EVERY`] (a process `/proc` does not show is looked for
    /// again after pmon's [`pmon::ABSENT_RECHECK`]).
    fn host_facts(&mut self, host: &HostProc, p: &mut ProcSnap, now: Instant) {
        if let Some(k) = self.known.get_mut(&p.pid) {
            k.seen = now;
            let every = if k.shown {
                HOST_EVERY
            } else {
                pmon::ABSENT_RECHECK
            };
            if now.duration_since(k.read_at) < every {
                k.apply(p);
                return;
            }
        }
        let Ok(stat) = host.read(p.pid, "stat") else {
            self.known.insert(p.pid, Known::absent(now));
            return;
        };
        let start = procinfo::stat_identity(&stat).map_or(0, |(_, s)| s);
        let ticks = stat_ticks(&stat);
        let same = self
            .known
            .get(&p.pid)
            .is_some_and(|k| k.shown && k.start == start);
        if !same {
            let status = host.status(p.pid).ok();
            let user = status.as_deref().and_then(procinfo::parse_euid).map(|uid| {
                procinfo::user_name(uid)
                    .unwrap_or_else(|| uid.to_string())
                    .into()
            });
            let command = host
                .read(p.pid, "cmdline")
                .ok()
                .map(|b| procinfo::parse_cmdline(&b))
                .filter(|c| !c.is_empty())
                .map(Arc::from);
            let container = host
                .read(p.pid, "cgroup")
                .ok()
                .and_then(|b| procinfo::container_id(&String::from_utf8_lossy(&b)))
                .map(|id| id.chars().take(12).collect::<String>().into());
            self.known.insert(
                p.pid,
                Known {
                    shown: true,
                    start,
                    user,
                    command,
                    container,
                    ticks: None,
                    read_at: now,
                    cpu_pct: None,
                    host_mem: None,
                    seen: now,
                },
            );
        }
        let hz = self.hz;
        let Some(k) = self.known.get_mut(&p.pid) else {
            return;
        };
        if let (Some(t), Some((t0, at))) = (ticks, k.ticks) {
            let secs = now.duration_since(at).as_secs_f64();
            if secs > 0.0 {
                k.cpu_pct = Some(t.saturating_sub(t0) as f64 / hz / secs * 100.0);
            }
        }
        k.ticks = ticks.map(|t| (t, now));
        k.read_at = now;
        k.host_mem = host
            .read(p.pid, "statm")
            .ok()
            .and_then(|b| statm_resident_pages(&b))
            .map(|pages| pages.saturating_mul(page_size()));
        k.apply(p);
    }
}

/// How often a process's host facts (CPU, resident memory) are read.
pub const HOST_EVERY: Duration = Duration::from_secs(1);

impl Known {
    fn absent(now: Instant) -> Self {
        Known {
            shown: false,
            start: 0,
            user: None,
            command: None,
            container: None,
            ticks: None,
            read_at: now,
            cpu_pct: None,
            host_mem: None,
            seen: now,
        }
    }

    fn apply(&self, p: &mut ProcSnap) {
        if !self.shown {
            return;
        }
        p.start = self.start;
        p.user.clone_from(&self.user);
        p.container.clone_from(&self.container);
        if let Some(c) = &self.command {
            p.command = Arc::clone(c);
        }
        p.cpu_pct = self.cpu_pct;
        p.host_mem = self.host_mem;
    }
}

/// A code that means the GPU is gone, not that a value is missing.
fn is_lost(code: NvmlCode) -> bool {
    code == NvmlCode::GPU_IS_LOST
        || code == NvmlCode::RESET_REQUIRED
        || code == NvmlCode::GPU_NOT_FOUND
}

impl TopReader {
    /// The GPU's MIG devices with their memory (none when MIG is off): the
    /// layout kept from an earlier sample while it is younger than
    /// [`MIG_RECHECK`] and its devices answer, else listed again.
    fn mig(&mut self, session: &Session, c: &GpuCtx<'_>) -> Vec<MigSnap> {
        let kept = self
            .mig
            .take()
            .filter(|l| l.whole && l.at.elapsed() < MIG_RECHECK);
        let listed_now = kept.is_none();
        let mut layout = kept.unwrap_or_else(|| list_mig(c));
        let (mut snaps, mut ok) = read_mig(session, &layout);
        if !ok && !listed_now {
            // A MIG device kept from before fails: it may be gone.
            layout = list_mig(c);
            (snaps, ok) = read_mig(session, &layout);
        }
        layout.whole &= ok;
        self.mig = Some(layout);
        snaps
    }
}

/// List the GPU's MIG devices (none when MIG is off) with their profiles,
/// UUIDs and instance ids.
fn list_mig(c: &GpuCtx<'_>) -> MigLayout {
    let mut layout = MigLayout {
        devices: Vec::new(),
        at: Instant::now(),
        whole: true,
    };
    let (dev, mode) = (c.handle(), c.mig_mode());
    match (dev, mode) {
        (Ok(_), Ok((1, _))) => {}
        // MIG off, or a GPU without MIG: no MIG devices.
        (Ok(_), Ok(_)) => return layout,
        (Ok(_), Err(code)) if code == NvmlCode::NOT_SUPPORTED => return layout,
        _ => {
            layout.whole = false;
            return layout;
        }
    }
    for d in raw::mig_devices(&c.raw()) {
        // A MIG device NVML handed out has a handle.
        let Ok(handle) = d.handle() else { continue };
        let (name, uuid) = (raw::name(&d), raw::uuid(&d));
        let (gi, ci) = (raw::gpu_instance_id(&d), raw::compute_instance_id(&d));
        layout.whole &= name.is_ok() && uuid.is_ok() && gi.is_ok() && ci.is_ok();
        layout.devices.push(MigDev {
            // The handle belongs to this open session, and is only passed
            // back to NVML through it.
            handle: Handle(handle),
            profile: name
                .map(|n| Arc::from(super::listing::mig_profile(&n)))
                .unwrap_or_default(),
            uuid: uuid.map(Arc::from).unwrap_or_default(),
            gpu_instance: gi.ok(),
            compute_instance: ci.ok(),
        });
    }
    layout
}

/// Each listed MIG device with its memory now; and whether every read answered.
fn read_mig(session: &Session, layout: &MigLayout) -> (Vec<MigSnap>, bool) {
    let mut ok = true;
    let snaps = layout
        .devices
        .iter()
        .map(|m| {
            let mem = raw::memory(&raw::Dev::new(session, Ok(m.handle.0)));
            ok &= mem.is_ok();
            let mem = mem.ok();
            MigSnap {
                profile: Arc::clone(&m.profile),
                uuid: Arc::clone(&m.uuid),
                gpu_instance: m.gpu_instance,
                compute_instance: m.compute_instance,
                mem_used: mem.as_ref().map(|m| m.used),
                mem_total: mem.as_ref().map(|m| m.total),
            }
        })
        .collect();
    (snaps, ok)
}

/// Fields 14 and 15 of `/proc/PID/stat` (user and system time, ticks).
pub fn stat_ticks(stat: &[u8]) -> Option<u64> {
    let s = String::from_utf8_lossy(stat);
    let close = s.rfind(')')?;
    let mut f = s.get(close + 1..)?.split_whitespace().skip(11);
    let utime: u64 = f.next()?.parse().ok()?;
    let stime: u64 = f.next()?.parse().ok()?;
    Some(utime.saturating_add(stime))
}

/// The resident pages of a `/proc/PID/statm` text (its second number).
pub fn statm_resident_pages(statm: &[u8]) -> Option<u64> {
    String::from_utf8_lossy(statm)
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn clock_ticks_per_second() -> f64 {
    // SAFETY: sysconf only reads a system constant.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        hz as f64
    } else {
        100.0
    }
}

fn page_size() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(p).ok().filter(|&p| p > 0).unwrap_or(4096)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_ticks_and_resident_pages() {
        let stat = b"4242 (my (odd) prog) S 1 4242 4242 0 -1 4194560 100 0 0 0 17 5 0 0 20 0 1 0 987654 1000 10";
        assert_eq!(stat_ticks(stat), Some(22));
        assert_eq!(stat_ticks(b"garbage"), None);
        assert_eq!(statm_resident_pages(b"1000 250 30 1 0 100 0\n"), Some(250));
        assert_eq!(statm_resident_pages(b""), None);
    }

    #[test]
    fn the_pmon_metrics_top_shows_exist() {
        let r = TopReader::new();
        assert_eq!(r.pmon_metric_count(), PMON_METRICS.len());
    }

    impl TopReader {
        fn pmon_metric_count(&self) -> usize {
            pmon::METRICS
                .iter()
                .filter(|m| m.process().is_some_and(|p| PMON_METRICS.contains(&p)))
                .count()
        }
    }
}
