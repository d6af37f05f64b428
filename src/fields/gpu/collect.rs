//! Turning the registry into rows.

use super::{unsupported, GpuCtx, FIELDS};
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::Device;
use nvml_wrapper_sys::bindings::nvmlDevice_t;

/// A selected GPU and its NVML handle, looked up once and reused by every
/// sample of a loop (NVML handles stay valid until the library shuts down).
pub struct Target {
    pub index: u32,
    handle: Result<nvmlDevice_t, NvmlCode>,
}

/// Look up the handles of the selected GPUs.
pub fn targets(session: &Session, devices: &[u32]) -> Vec<Target> {
    devices
        .iter()
        .map(|&index| Target {
            index,
            // SAFETY: the raw handle is only turned back into a `Device`
            // of this same session (below).
            handle: session.device(index).map(|d| unsafe { d.handle() }),
        })
        .collect()
}

/// Read the given fields (indices into [`FIELDS`]) for each selected GPU.
pub fn collect(
    session: &Session,
    devices: &[u32],
    count: u32,
    fields: &[usize],
) -> Vec<crate::format::Row> {
    collect_targets(session, &targets(session, devices), count, fields)
}

/// [`collect`] for GPUs whose handles were looked up before.
pub fn collect_targets(
    session: &Session,
    targets: &[Target],
    count: u32,
    fields: &[usize],
) -> Vec<crate::format::Row> {
    targets
        .iter()
        .map(|t| {
            let ctx = match t.handle {
                // SAFETY: the handle came from `session.device` of this
                // session, which is still open.
                Ok(h) => GpuCtx::with_device(
                    session,
                    t.index,
                    count,
                    Ok(unsafe { Device::new(h, session.nvml()) }),
                ),
                // Looking the GPU up failed before; try again.
                Err(_) => GpuCtx::new(session, t.index, count),
            };
            let cells = fields
                .iter()
                .map(|&f| {
                    FIELDS
                        .get(f)
                        .map_or_else(unsupported, |def| (def.get)(&ctx))
                })
                .collect();
            crate::format::Row::new(cells)
        })
        .collect()
}
