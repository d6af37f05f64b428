//! `nvlink`: each selected GPU's links, their state, speed, capabilities and
//! error counters, read through NVML.

use crate::model::nvlink::{GpuLinks, LinkFacts};
use crate::model::NvmlCode;
use crate::nvml::{raw, Session};
use nvml_wrapper::enum_wrappers::nv_link::{Capability, ErrorCounter};
use nvml_wrapper_sys::bindings::{field_id, NVML_NVLINK_MAX_LINKS};

/// What to read besides each link's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Speed,
    Capabilities,
    Errors,
}

/// In the order of `model::nvlink::CAPABILITIES`.
const CAPS: [Capability; 6] = [
    Capability::P2p,
    Capability::SysMemAccess,
    Capability::P2pAtomics,
    Capability::SysMemAtomics,
    Capability::SliBridge,
    Capability::ValidLink,
];

/// In the order of `model::nvlink::ERROR_COUNTERS`.
const COUNTERS: [ErrorCounter; 3] = [
    ErrorCounter::DlReplay,
    ErrorCounter::DlRecovery,
    ErrorCounter::DlCrcFlit,
];

/// The links of the GPUs `devices`. Links are read until NVML says there
/// are no more (or that the GPU has no NVLink).
pub fn gpus(session: &Session, devices: &[u32], want: Want) -> Vec<GpuLinks> {
    devices.iter().map(|&i| gpu(session, i, want)).collect()
}

fn gpu(session: &Session, index: u32, want: Want) -> GpuLinks {
    let d = session.device(index);
    let mut g = GpuLinks {
        index,
        name: d
            .as_ref()
            .map_err(|c| *c)
            .and_then(|d| d.name().map_err(NvmlCode::from)),
        uuid: d
            .as_ref()
            .map_err(|c| *c)
            .and_then(|d| d.uuid().map_err(NvmlCode::from)),
        links: Vec::new(),
    };
    let Ok(d) = d else { return g };
    // SAFETY: the handle belongs to this open session.
    let dev = raw::Dev::new(session, Ok(unsafe { d.handle() }));
    for link in 0..NVML_NVLINK_MAX_LINKS {
        let l = d.link_wrapper_for(link);
        let Ok(active) = l.is_active() else { break };
        let none = || Err(NvmlCode(3));
        let mut f = LinkFacts {
            link,
            active,
            speed_mbps: none(),
            capabilities: Vec::new(),
            errors: Vec::new(),
        };
        match want {
            Want::Speed if active => {
                let speed =
                    raw::field_values(&dev, &[(field_id::NVML_FI_DEV_NVLINK_GET_SPEED, link)]);
                f.speed_mbps = speed
                    .into_iter()
                    .next()
                    .unwrap_or(Err(NvmlCode(3)))
                    .map(|v| u64::try_from(v.as_i64()).unwrap_or(0));
            }
            Want::Capabilities => {
                f.capabilities = CAPS
                    .iter()
                    .map(|&c| l.has_capability(c).map_err(NvmlCode::from))
                    .collect();
            }
            Want::Errors if active => {
                f.errors = COUNTERS
                    .iter()
                    .map(|&c| l.error_counter(c).map_err(NvmlCode::from))
                    .collect();
            }
            _ => {}
        }
        g.links.push(f);
    }
    g
}
