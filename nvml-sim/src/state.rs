//! Process-global simulator state: the scenario loaded by `nvmlInit`, what it has become since
//! (clocks, processes, events, faults), and entering it from an export (`enter`, `dev_fn`,
//! `sys_fn`, ...). The codes, handles and out-pointers those use are in [`crate::call`].

use crate::call::*;
use crate::scenario::{Device, Fault, Scenario, Series};
use nvml_wrapper_sys::bindings::*;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

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
    pub event_sets: HashMap<usize, crate::events::EventSet>,
    pub next_event_set: usize,
    /// GPM sample buffers and sample counts (see `gpm.rs`).
    pub gpm: crate::gpm::Gpm,
}

impl State {
    fn new(sc: Scenario) -> State {
        let mut proc_names = HashMap::new();
        let mut add = |p: &crate::scenario::Process| {
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
            gpm: crate::gpm::Gpm::default(),
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

static STATE: Mutex<Option<State>> = Mutex::new(None);

pub(crate) fn lock() -> MutexGuard<'static, Option<State>> {
    STATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// `nvmlInit*`: reference-counted.
pub(crate) fn init() -> nvmlReturn_t {
    guard(|| {
        let mut g = lock();
        if let Some(st) = g.as_mut() {
            st.refcount = st.refcount.saturating_add(1);
            return SUCCESS;
        }
        let sc = match Scenario::from_env() {
            Ok(sc) => sc,
            Err(e) => {
                eprintln!("nvml-sim: cannot load scenario: {e}");
                return UNKNOWN;
            }
        };
        if let Some(c) = &sc.init_fault {
            return c.value().unwrap_or(UNKNOWN);
        }
        *g = Some(State::new(sc));
        SUCCESS
    })
}

pub(crate) fn shutdown() -> nvmlReturn_t {
    guard(|| {
        let mut g = lock();
        match g.as_mut() {
            None => UNINITIALIZED,
            Some(st) => {
                st.refcount = st.refcount.saturating_sub(1);
                if st.refcount == 0 {
                    *g = None;
                }
                SUCCESS
            }
        }
    })
}

/// Body of a generated stub.
pub(crate) fn stub(sym: &'static str) -> nvmlReturn_t {
    guard(|| {
        let g = lock();
        match g.as_ref() {
            None => UNINITIALIZED,
            Some(st) if st.absent.contains(sym) => FUNCTION_NOT_FOUND,
            Some(_) => NOT_SUPPORTED,
        }
    })
}

fn active_fault<'a>(faults: &'a [Fault], sym: &str, n: u64) -> Option<&'a Fault> {
    faults
        .iter()
        .find(|f| f.function == sym && n > f.after_calls)
}

/// Phase 1 of every call: init check, absent function, handle check, counting, loss, faults
/// (including the delay, slept without the lock). Returns the target and the 1-based call number.
pub(crate) fn enter(
    sym: &'static str,
    h: Option<nvmlDevice_t>,
    counted: bool,
) -> R<(Option<Target>, u64)> {
    let (res, delay) = {
        let mut g = lock();
        let st = g.as_mut().ok_or(UNINITIALIZED)?;
        if st.absent.contains(sym) {
            return Err(FUNCTION_NOT_FOUND);
        }
        let target = match h {
            Some(h) => Some(st.resolve(h).ok_or(INVALID_ARGUMENT)?),
            None => None,
        };
        let key = target.map(Target::gpu).unwrap_or(usize::MAX);
        let c = st.counters.entry((key, sym)).or_insert(0);
        let n = if counted {
            *c += 1;
            *c
        } else {
            *c + 1
        };
        let faults: &[Fault] = match target {
            Some(t) => {
                let gi = t.gpu();
                let calls = st.dev_calls.get_mut(gi).ok_or(INVALID_ARGUMENT)?;
                *calls += 1;
                let calls = *calls;
                let dev = st.sc.device.get(gi).ok_or(INVALID_ARGUMENT)?;
                if dev.lost_after_calls.is_some_and(|l| calls > l) {
                    return Err(GPU_IS_LOST);
                }
                &dev.fault
            }
            None => &st.sc.fault,
        };
        let latency = st.sc.latency.of(sym);
        match active_fault(faults, sym, n) {
            Some(f) => {
                let code = f.code.as_ref().map(|c| c.value().unwrap_or(UNKNOWN));
                let res = match code {
                    Some(c) if c != SUCCESS => Err(c),
                    _ => Ok((target, n)),
                };
                (res, latency + std::time::Duration::from_millis(f.delay_ms))
            }
            None => (Ok((target, n)), latency),
        }
    };
    if !delay.is_zero() {
        std::thread::sleep(delay);
    }
    res
}

/// What a device function body sees.
pub(crate) struct Ctx<'a> {
    pub dev: &'a Device,
    pub target: Target,
    /// 1-based number of this call of this function on this device.
    pub n: u64,
    /// Seconds since `nvmlInit` loaded the scenario (for values that follow the clock).
    pub elapsed_s: f64,
}

impl Ctx<'_> {
    pub(crate) fn idx(&self) -> usize {
        usize::try_from(self.n.saturating_sub(1)).unwrap_or(usize::MAX)
    }
    /// Current value of a series, NOT_SUPPORTED if absent.
    pub(crate) fn val<T: Copy>(&self, v: &Option<Series<T>>) -> R<T> {
        v.as_ref()
            .and_then(|s| s.at(self.idx()))
            .ok_or(NOT_SUPPORTED)
    }
    pub(crate) fn opt<T: Copy>(&self, v: &Option<Series<T>>) -> Option<T> {
        v.as_ref().and_then(|s| s.at(self.idx()))
    }
    pub(crate) fn mig(&self) -> Option<&crate::scenario::MigInstance> {
        match self.target {
            Target::Mig(_, j) => self.dev.mig_instance.get(j),
            Target::Gpu(_) => None,
        }
    }
}

/// A call on a device handle. `mig_ok`: MIG handles are accepted (else NOT_SUPPORTED for them).
/// `counted`: false for sizing calls of two-call protocols.
pub(crate) fn dev_call(
    sym: &'static str,
    h: nvmlDevice_t,
    mig_ok: bool,
    counted: bool,
    f: impl FnOnce(&Ctx) -> R,
) -> nvmlReturn_t {
    guard(|| {
        let r = (|| {
            let (target, n) = enter(sym, Some(h), counted)?;
            let target = target.ok_or(INVALID_ARGUMENT)?;
            if !mig_ok && matches!(target, Target::Mig(..)) {
                return Err(NOT_SUPPORTED);
            }
            let g = lock();
            let st = g.as_ref().ok_or(UNINITIALIZED)?;
            let dev = st.sc.device.get(target.gpu()).ok_or(INVALID_ARGUMENT)?;
            f(&Ctx {
                dev,
                target,
                n,
                elapsed_s: st.started.elapsed().as_secs_f64(),
            })
        })();
        ret(r)
    })
}

/// A GPU-only call that also sees every device of the scenario (NVLink peers).
pub(crate) fn peer_fn(
    sym: &'static str,
    h: nvmlDevice_t,
    f: impl FnOnce(&Ctx, &State) -> R,
) -> nvmlReturn_t {
    guard(|| {
        let r = (|| {
            let (target, n) = enter(sym, Some(h), true)?;
            let target = target.ok_or(INVALID_ARGUMENT)?;
            if matches!(target, Target::Mig(..)) {
                return Err(NOT_SUPPORTED);
            }
            let g = lock();
            let st = g.as_ref().ok_or(UNINITIALIZED)?;
            let dev = st.sc.device.get(target.gpu()).ok_or(INVALID_ARGUMENT)?;
            f(
                &Ctx {
                    dev,
                    target,
                    n,
                    elapsed_s: st.started.elapsed().as_secs_f64(),
                },
                st,
            )
        })();
        ret(r)
    })
}

/// A call on two GPU handles (`f` gets the first one's context and the second device).
pub(crate) fn pair_fn(
    sym: &'static str,
    h1: nvmlDevice_t,
    h2: nvmlDevice_t,
    f: impl FnOnce(&Ctx, &Device) -> R,
) -> nvmlReturn_t {
    peer_fn(sym, h1, |c, st| match st.resolve(h2) {
        Some(Target::Gpu(j)) => {
            let d = st.sc.device.get(j).ok_or(INVALID_ARGUMENT)?;
            // The second GPU is lost when its next call would be.
            let calls = st.dev_calls.get(j).copied().unwrap_or(0);
            if d.lost_after_calls.is_some_and(|l| calls >= l) {
                return Err(GPU_IS_LOST);
            }
            f(c, d)
        }
        Some(Target::Mig(..)) => Err(NOT_SUPPORTED),
        None => Err(INVALID_ARGUMENT),
    })
}

/// A GPU-only device call.
pub(crate) fn dev_fn(
    sym: &'static str,
    h: nvmlDevice_t,
    f: impl FnOnce(&Ctx) -> R,
) -> nvmlReturn_t {
    dev_call(sym, h, false, true, f)
}

/// A device call that also accepts MIG handles.
pub(crate) fn any_fn(
    sym: &'static str,
    h: nvmlDevice_t,
    f: impl FnOnce(&Ctx) -> R,
) -> nvmlReturn_t {
    dev_call(sym, h, true, true, f)
}

/// A call without a device handle; `f` gets the state and the 1-based call number.
pub(crate) fn sys_fn(sym: &'static str, f: impl FnOnce(&State, u64) -> R) -> nvmlReturn_t {
    guard(|| {
        let r = (|| {
            let (_, n) = enter(sym, None, true)?;
            let g = lock();
            let st = g.as_ref().ok_or(UNINITIALIZED)?;
            f(st, n)
        })();
        ret(r)
    })
}
