//! Turning the registry into rows.

use super::{unsupported, GpuCtx, FIELDS};
use crate::format::{GpuIdent, Row};
use crate::nvml::{NvmlCode, Session};
use nvml_wrapper::Device;
use nvml_wrapper_sys::bindings::nvmlDevice_t;
use std::sync::Arc;

/// A selected GPU and its NVML handle, looked up once and reused by every
/// sample of a loop (NVML handles stay valid until the library shuts down).
pub struct Target {
    pub index: u32,
    handle: Result<nvmlDevice_t, NvmlCode>,
    /// Who the GPU is (Prometheus labels), read once it could be read whole.
    ident: std::cell::OnceCell<Arc<GpuIdent>>,
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
            ident: std::cell::OnceCell::new(),
        })
        .collect()
}

/// Read the given fields (indices into [`FIELDS`]) for each selected GPU.
pub fn collect(session: &Session, devices: &[u32], count: u32, fields: &[usize]) -> Vec<Row> {
    collect_targets(session, &targets(session, devices), count, fields, false)
}

/// [`collect`], also filling [`Row::gpu`] when `ident` is set (formats that
/// label rows by GPU ask for it: [`crate::format::Formatter::needs_gpu_ident`]).
pub fn collect_rows(
    session: &Session,
    devices: &[u32],
    count: u32,
    fields: &[usize],
    ident: bool,
) -> Vec<Row> {
    collect_targets(session, &targets(session, devices), count, fields, ident)
}

/// [`collect_rows`] for GPUs whose handles were looked up before.
pub fn collect_targets(
    session: &Session,
    targets: &[Target],
    count: u32,
    fields: &[usize],
    ident: bool,
) -> Vec<Row> {
    // All field-value fields of a row are fetched in one NVML call first.
    let field_values: Vec<(u32, u32)> = fields
        .iter()
        .filter_map(|&f| FIELDS.get(f).and_then(|d| d.get.field_value()))
        .collect();
    targets
        .iter()
        .map(|t| {
            let ctx = target_ctx(session, t, count);
            // Who the GPU is, before its values: a GPU that fails midway
            // keeps the labels it had.
            let gpu = ident.then(|| target_ident(t, &ctx));
            if !field_values.is_empty() {
                ctx.prefetch_field_values(&field_values);
            }
            let cells = fields
                .iter()
                .map(|&f| {
                    FIELDS
                        .get(f)
                        .map_or_else(unsupported, |def| def.get.read(&ctx))
                })
                .collect();
            let mut row = Row::new(cells);
            row.gpu = gpu;
            row.timestamp = Some(ctx.timestamp);
            row
        })
        .collect()
}

/// The context of a GPU whose handle was looked up before.
fn target_ctx<'s>(session: &'s Session, t: &Target, count: u32) -> GpuCtx<'s> {
    match t.handle {
        // SAFETY: the handle came from `session.device` of this session,
        // which is still open.
        Ok(h) => GpuCtx::with_device(
            session,
            t.index,
            count,
            Ok(unsafe { Device::new(h, session.nvml()) }),
        ),
        // Looking the GPU up failed before; try again.
        Err(_) => GpuCtx::new(session, t.index, count),
    }
}

/// Who a GPU is (Prometheus labels), for the list modes' rows; read once
/// per run like the rows of `--query-gpu`.
pub fn ident(session: &Session, t: &Target) -> Arc<GpuIdent> {
    target_ident(t, &target_ctx(session, t, 0))
}

/// The GPU's identity, read on the first sample and kept for the next ones
/// (it does not change); while a part is missing it is read again.
fn target_ident(t: &Target, ctx: &GpuCtx<'_>) -> Arc<GpuIdent> {
    if let Some(id) = t.ident.get() {
        return Arc::clone(id);
    }
    let id = Arc::new(gpu_ident(ctx));
    if !id.uuid.is_empty() && !id.name.is_empty() && !id.pci_bus_id.is_empty() {
        let _ = t.ident.set(Arc::clone(&id));
    }
    id
}

/// Who the GPU is; a part NVML cannot tell (a lost GPU) is left empty.
fn gpu_ident(ctx: &GpuCtx<'_>) -> GpuIdent {
    GpuIdent {
        index: ctx.index,
        uuid: ctx.call(|d| d.uuid()).unwrap_or_default(),
        name: ctx.call(|d| d.name()).unwrap_or_default(),
        pci_bus_id: ctx.pci().map(|p| p.bus_id.clone()).unwrap_or_default(),
    }
}
