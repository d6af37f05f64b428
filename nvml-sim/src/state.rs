//! Process-global simulator state: the scenario loaded by `nvmlInit`, what it has become since
//! (call counters, process names, event sets, GPM buffers), the device handles that point into
//! it, and its lock. Entering it from an export is [`crate::call`]'s.

use crate::live::Live;
use crate::scenario::{Process, Scenario, MAX_DEVICES, MAX_MIG_INSTANCES};
use nvml_wrapper_sys::bindings::nvmlDevice_t;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

/// Handles are addresses inside this (never written) block: device `i` is `base + i*64`,
/// its MIG instance `j` is `base + i*64 + 1 + j`.
const SLOT: usize = MAX_MIG_INSTANCES + 1;
static HANDLE_SPACE: [u8; MAX_DEVICES * SLOT] = [0; MAX_DEVICES * SLOT];

pub(crate) fn device_handle(i: usize) -> nvmlDevice_t {
    HANDLE_SPACE.as_ptr().wrapping_add(i * SLOT) as nvmlDevice_t
}

pub(crate) fn mig_handle(i: usize, j: usize) -> nvmlDevice_t {
    HANDLE_SPACE.as_ptr().wrapping_add(i * SLOT + 1 + j) as nvmlDevice_t
}

/// The device `i` and slot `k` (0: the GPU, `1 + j`: its MIG instance `j`) a handle points
/// at, if it is one of ours at all.
pub(crate) fn handle_slot(h: nvmlDevice_t) -> Option<(usize, usize)> {
    let base = HANDLE_SPACE.as_ptr() as usize;
    let p = h as usize;
    if h.is_null() || p < base || p >= base + HANDLE_SPACE.len() {
        return None;
    }
    let off = p - base;
    Some((off / SLOT, off % SLOT))
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Target {
    Gpu(usize),
    Mig(usize, usize),
}

impl Target {
    pub(crate) fn gpu(self) -> usize {
        match self {
            Target::Gpu(i) | Target::Mig(i, _) => i,
        }
    }
}

pub(crate) struct ProcName {
    pub name: Option<String>,
    pub error: Option<u32>,
    /// `names`: the k-th `nvmlSystemGetProcessName` call for this PID answers the k-th (the
    /// last one repeating); empty = `name` every time.
    pub names: Vec<String>,
    /// Calls of `nvmlSystemGetProcessName` for this PID so far.
    pub calls: usize,
}

pub(crate) struct State {
    pub refcount: u32,
    pub sc: Scenario,
    /// Calls per (device index or usize::MAX for system calls, symbol),
    /// hashed with foldhash: every call counts, and SipHash over the symbol's
    /// name was a sixth of what a call cost.
    pub counters: HashMap<(usize, &'static str), u64, foldhash::fast::FixedState>,
    /// All calls per device (for `lost_after_calls`).
    pub dev_calls: Vec<u64>,
    pub proc_names: HashMap<u32, ProcName>,
    pub absent: HashSet<String>,
    /// When `nvmlInit` loaded the scenario (scripted events count from here).
    pub started: std::time::Instant,
    /// Event sets by number (see `events.rs`).
    pub event_sets: HashMap<usize, EventSet>,
    pub next_event_set: usize,
    /// GPM sample buffers and sample counts (see `gpm.rs`).
    pub gpm: Gpm,
    /// The live processes, when the scenario has a control directory (see `live.rs`).
    pub live: Option<Live>,
}

impl State {
    pub(crate) fn new(sc: Scenario) -> State {
        let mut proc_names = HashMap::new();
        let mut add = |p: &Process| {
            proc_names.entry(p.pid).or_insert_with(|| ProcName {
                name: p.name.clone(),
                error: p.name_error.as_ref().and_then(|c| c.value().ok()),
                names: p.names.clone(),
                calls: 0,
            });
        };
        sc.process.iter().for_each(&mut add);
        for d in &sc.device {
            d.process.iter().for_each(&mut add);
            d.graphics_process.iter().for_each(&mut add);
            d.mps_process.iter().for_each(&mut add);
        }
        State {
            refcount: 1,
            counters: HashMap::default(),
            dev_calls: vec![0; sc.device.len()],
            proc_names,
            absent: sc.absent_functions.iter().cloned().collect(),
            started: std::time::Instant::now(),
            event_sets: HashMap::new(),
            next_event_set: 0,
            gpm: Gpm::default(),
            live: sc
                .live_dir()
                .map(|d| Live::new(d, sc.live_every_ms(), sc.live_pid_offset())),
            sc,
        }
    }

    pub(crate) fn resolve(&self, h: nvmlDevice_t) -> Option<Target> {
        let (i, k) = handle_slot(h)?;
        let dev = self.sc.device.get(i)?;
        if k == 0 {
            Some(Target::Gpu(i))
        } else if k - 1 < dev.mig_instance.len() {
            Some(Target::Mig(i, k - 1))
        } else {
            None
        }
    }
}

/// One event set (see `events.rs`): the GPUs registered with it and the events it delivered.
#[derive(Default)]
pub(crate) struct EventSet {
    pub(crate) gpus: Vec<usize>,
    pub(crate) delivered: HashSet<(usize, usize)>,
}

/// What a filled GPM sample buffer (see `gpm.rs`) holds: whose sample it is and its number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Taken {
    pub(crate) gpu: usize,
    pub(crate) gi: Option<u32>,
    pub(crate) n: u64,
}

/// The simulator's GPM state (part of `State`).
#[derive(Default)]
pub(crate) struct Gpm {
    /// Allocated buffers by number; `None` until a sample is read into one.
    pub(crate) samples: HashMap<usize, Option<Taken>>,
    pub(crate) next: usize,
    /// Samples taken so far per (GPU, GPU instance).
    pub(crate) taken: HashMap<(usize, Option<u32>), u64>,
}

static STATE: Mutex<Option<State>> = Mutex::new(None);

pub(crate) fn lock() -> MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}
