//! Turning the registry into rows.

use super::{unsupported, GpuCtx, FIELDS};
use crate::format::{GpuIdent, Row};
use std::rc::Rc;

/// Read the given fields (indices into [`FIELDS`]) for each selected GPU.
pub fn collect(
    session: &crate::nvml::Session,
    devices: &[u32],
    count: u32,
    fields: &[usize],
) -> Vec<Row> {
    collect_rows(session, devices, count, fields, false)
}

/// [`collect`], also filling [`Row::gpu`] when `ident` is set (formats that
/// label rows by GPU ask for it: [`crate::format::Formatter::needs_gpu_ident`]).
pub fn collect_rows(
    session: &crate::nvml::Session,
    devices: &[u32],
    count: u32,
    fields: &[usize],
    ident: bool,
) -> Vec<Row> {
    devices
        .iter()
        .map(|&i| {
            let ctx = GpuCtx::new(session, i, count);
            // Who the GPU is, before its values: a GPU that fails midway
            // keeps the labels it had.
            let gpu = ident.then(|| Rc::new(gpu_ident(&ctx)));
            let cells = fields
                .iter()
                .map(|&f| {
                    FIELDS
                        .get(f)
                        .map_or_else(unsupported, |def| (def.get)(&ctx))
                })
                .collect();
            let mut row = Row::new(cells);
            row.gpu = gpu;
            row.timestamp = Some(ctx.timestamp);
            row
        })
        .collect()
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
