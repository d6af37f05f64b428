//! The GPUs a command reads: each selected GPU's NVML handle, looked up once
//! and reused by every sample of a loop (NVML handles stay valid until the
//! library shuts down), and its identity, read once it could be read whole.

use super::ctx::GpuCtx;
use crate::model::GpuIdent;
use crate::nvml::raw::Dev;
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper_sys::bindings::nvmlDevice_t;
use std::cell::OnceCell;
use std::sync::Arc;

/// An NVML device handle that may move to another thread.
#[derive(Clone, Copy)]
pub(crate) struct Handle(pub(crate) nvmlDevice_t);

// SAFETY: an NVML device handle is an opaque token that NVML (thread-safe
// since its first versions) accepts from any thread for as long as the
// library stays initialised; nvq never dereferences it.
unsafe impl Send for Handle {}

/// A selected GPU.
pub struct Target {
    /// The GPU's NVML index (what `-i` selects by and `index` prints).
    pub index: u32,
    handle: Result<Handle, NvmlCode>,
    /// Who the GPU is (Prometheus labels), kept once it was read whole.
    ident: OnceCell<Arc<GpuIdent>>,
}

/// Look up the handles of the selected GPUs (indices in NVML's enumeration).
pub fn targets(session: &Session, devices: &[u32]) -> Vec<Target> {
    devices
        .iter()
        .map(|&index| Target {
            index,
            // The raw handle is only passed back to NVML through this same
            // session (`Target::context`).
            handle: Dev::by_index(session, index).handle().map(Handle),
            ident: OnceCell::new(),
        })
        .collect()
}

impl Target {
    /// A fresh per-sample context of this GPU (`count`: the `count` field).
    /// A GPU whose lookup failed before is looked up again.
    pub fn context<'s>(&self, session: &'s Session, count: u32) -> GpuCtx<'s> {
        match self.handle {
            // The handle came from a look-up in this session, which is
            // still open.
            Ok(h) => GpuCtx::with_handle(session, self.index, count, Ok(h.0)),
            Err(_) => GpuCtx::new(session, self.index, count),
        }
    }

    /// The GPU's identity, read on the first sample and kept for the next
    /// ones (it does not change); while a part is missing it is read again.
    pub fn ident(&self, ctx: &GpuCtx<'_>) -> Arc<GpuIdent> {
        if let Some(id) = self.ident.get() {
            return Arc::clone(id);
        }
        let id = Arc::new(GpuIdent {
            index: ctx.index,
            uuid: ctx.uuid().unwrap_or_default().to_string(),
            name: ctx.name().unwrap_or_default().to_string(),
            pci_bus_id: ctx.bus_id().unwrap_or_default().to_string(),
        });
        if !id.uuid.is_empty() && !id.name.is_empty() && !id.pci_bus_id.is_empty() {
            let _ = self.ident.set(Arc::clone(&id));
        }
        id
    }
}
