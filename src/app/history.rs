//! What a loop's history needs from the GPUs besides their rows: each GPU's UUID (the key of its series,
//! for rows that do not carry their GPU: dmon, pmon) and its memory (what a process's memory fills, for
//! `time_to_full()` and `--summary`). Each GPU's job reads them once, on its worker, under the sample's
//! deadline; the loop hands them to the script before the sample's rows.

use crate::script::Script;
use nvq_core::nvml::Session;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

/// A GPU's UUID and memory in bytes.
type GpuFacts = (String, Option<f64>);

/// What the GPUs' jobs found out, per NVML index; taken by [`tell`].
#[derive(Clone, Default)]
pub struct Noted(Arc<Mutex<BTreeMap<u32, GpuFacts>>>);

impl Noted {
    /// Read GPU `gpu`'s UUID and memory; false while the UUID cannot be read (the job tries again next sample).
    pub fn read(&self, session: &Session, gpu: u32, count: u32) -> bool {
        let targets = nvq_core::source::targets(session, &[gpu]);
        let Some(t) = targets.first() else {
            return false;
        };
        let ctx = t.context(session, count);
        let uuid = t.ident(&ctx).uuid.clone();
        if uuid.is_empty() {
            return false;
        }
        let memory = ctx.memory().ok().map(|m| m.total as f64);
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(gpu, (uuid, memory));
        true
    }
}

/// Give `script` what the jobs found out since the last sample.
pub fn tell(noted: &Noted, script: &mut Script) {
    let gpus = std::mem::take(&mut *noted.0.lock().unwrap_or_else(PoisonError::into_inner));
    if !gpus.is_empty() {
        script.set_gpu_memory(gpus.iter().filter_map(|(&i, (_, m))| m.map(|m| (i, m))));
        script.name_gpus(gpus.into_iter().map(|(i, (u, _))| (i, u)));
    }
}
