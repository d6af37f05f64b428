//! XID errors from NVML's events (`nvmlEventSetCreate`,
//! `nvmlDeviceRegisterEvents`, `nvmlEventSetWait_v2`), counted per GPU and
//! code on a thread of their own: a collection that fails or misses its
//! deadline loses none of them.

use crate::model::XidCount;
use crate::nvml::raw::{self, Watch};
use crate::nvml::Session;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// How long one wait for an event lasts (the thread then waits again).
const WAIT_MS: u32 = 1000;

/// The counts, shared by the watching thread and the collections.
#[derive(Debug, Default)]
pub struct XidCounts {
    inner: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    /// (GPU index, code) → count, and when the last one was received
    /// (Unix milliseconds).
    counts: BTreeMap<(u32, u64), (u64, u64)>,
    /// GPU index → its last code.
    last: BTreeMap<u32, u64>,
}

impl XidCounts {
    /// Count one Xid event `code` received for GPU `gpu` (NVML index), now.
    pub fn add(&self, gpu: u32, code: u64) {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        let mut g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let e = g.counts.entry((gpu, code)).or_insert((0, 0));
        e.0 += 1;
        e.1 = now;
        g.last.insert(gpu, code);
    }

    /// Every (GPU, code) seen so far, in order.
    pub fn snapshot(&self) -> Vec<XidCount> {
        let g = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        g.counts
            .iter()
            .map(|(&(gpu, code), &(count, last_unix_ms))| XidCount {
                gpu,
                code,
                count,
                last: g.last.get(&gpu) == Some(&code),
                last_unix_ms,
            })
            .collect()
    }
}

/// Count the XID errors of `devices` into `counts` until the process ends,
/// on a thread of its own; `log` gets one line per error and per problem.
pub fn watch(
    session: Arc<Session>,
    devices: Vec<u32>,
    counts: Arc<XidCounts>,
    log: impl Fn(&str) + Send + 'static,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("nvq-xid".into())
        .spawn(move || run(&session, &devices, &counts, &log))
        .map(|_| ())
}

fn run(session: &Session, devices: &[u32], counts: &XidCounts, log: &dyn Fn(&str)) {
    let mut events = match raw::xid_events(session) {
        Ok(s) => s,
        Err(e) => {
            return log(&format!(
                "XID errors are not counted: cannot create an NVML event set: {e}"
            ))
        }
    };
    let mut watched = 0;
    for &i in devices {
        match events.watch(i) {
            Watch::Watched => watched += 1,
            Watch::NotFound => {}
            Watch::Unsupported => log(&format!(
                "GPU {i} does not report XID errors through NVML events"
            )),
            // nvml-wrapper has released the set.
            Watch::Failed(e) => return log(&format!("XID errors are not counted: GPU {i}: {e}")),
        }
    }
    if watched == 0 {
        return;
    }
    loop {
        match events.wait(WAIT_MS) {
            Ok(Some((gpu, code))) => {
                counts.add(gpu, code);
                log(&format!("XID {code} on GPU {gpu}"));
            }
            Ok(None) => {}
            Err(e) => {
                log(&format!(
                    "waiting for XID errors failed: {e}; trying again in a second"
                ));
                std::thread::sleep(Duration::from_secs(1));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_per_gpu_and_code_and_the_last() {
        let c = XidCounts::default();
        c.add(1, 79);
        c.add(1, 48);
        c.add(1, 79);
        c.add(0, 13);
        let s = c.snapshot();
        let find = |gpu, code| s.iter().find(|x| x.gpu == gpu && x.code == code).copied();
        assert_eq!(find(1, 79).map(|x| (x.count, x.last)), Some((2, true)));
        assert_eq!(find(1, 48).map(|x| (x.count, x.last)), Some((1, false)));
        assert_eq!(find(0, 13).map(|x| (x.count, x.last)), Some((1, true)));
        assert_eq!(s.len(), 3);
    }
}
