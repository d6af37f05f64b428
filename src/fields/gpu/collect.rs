//! Turning the registry into rows.

use super::{unsupported, GpuCtx, FIELDS};

/// Read the given fields (indices into [`FIELDS`]) for each selected GPU.
pub fn collect(
    session: &crate::nvml::Session,
    devices: &[u32],
    count: u32,
    fields: &[usize],
) -> Vec<crate::format::Row> {
    devices
        .iter()
        .map(|&i| {
            let ctx = GpuCtx::new(session, i, count);
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
