//! `nvlink`: each selected GPU's links, their state, speed, capabilities,
//! error counters, far ends and traffic counters, read through NVML.

use crate::model::nvlink::{GpuLinks, LinkFacts, LinkSupport, Traffic, MAX_LANES};
use crate::model::NvmlCode;
use crate::nvml::{raw, Session};
use crate::source::gpu::GpuCtx;
use nvml_wrapper::enum_wrappers::nv_link::{Capability, ErrorCounter};
use nvml_wrapper_sys::bindings::{field_id, NVML_NVLINK_MAX_LINKS};

/// What to read besides each link's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// Each active link's speed in MB/s (`-s`), from the NVLink speed field value.
    Speed,
    /// Each link's capabilities, P2P and the rest (`-c`); read for inactive links too.
    Capabilities,
    /// Each active link's error counters (`-e`).
    Errors,
    /// The far end: its PCI bus id and its own link number (`-p`, `-R`).
    Remote,
    /// Per-lane CRC error counts (`-ec`).
    LaneCrc,
    /// Traffic counters (`-gt`).
    Throughput(Traffic),
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

/// The most links NVML numbers (`-l` beyond it is refused).
pub const MAX_LINKS: u32 = NVML_NVLINK_MAX_LINKS;

/// The links of the GPUs `devices` (only link `only` of each, when given).
/// Links are read until NVML says there are no more (or that the GPU has no
/// NVLink).
pub fn gpus(session: &Session, devices: &[u32], want: Want, only: Option<u32>) -> Vec<GpuLinks> {
    devices
        .iter()
        .map(|&i| gpu(session, i, want, only))
        .collect()
}

fn gpu(session: &Session, index: u32, want: Want, only: Option<u32>) -> GpuLinks {
    // The GPU count is no part of the links.
    let c = GpuCtx::new(session, index, 0);
    let mut g = GpuLinks {
        index,
        name: c.name().map(str::to_string),
        uuid: c.uuid().map(str::to_string),
        any_active: false,
        support: LinkSupport::Links,
        links: Vec::new(),
    };
    if c.handle().is_err() {
        return g;
    }
    if c.mig_mode().is_ok_and(|(current, _)| current == 1) {
        g.support = LinkSupport::MigMode;
        return g;
    }
    let dev = c.raw();
    let mut last = None;
    let mut active_before = 0;
    let mut first_error = None;
    for link in 0..MAX_LINKS {
        let active = match raw::link_active(&dev, link) {
            Ok(a) => a,
            Err(code) => {
                first_error.get_or_insert(code);
                break;
            }
        };
        last = Some(link);
        g.any_active |= active;
        if only.map_or(true, |n| n == link) {
            let f = LinkFacts {
                active_before,
                ..LinkFacts::new(link, Ok(active))
            };
            g.links.push(facts(&dev, f, want));
        }
        active_before += u32::from(active);
    }
    // No link at all, and NVML says it is not supported (another failure,
    // a lost GPU, keeps the all-inactive line).
    if last.is_none() && first_error == Some(NvmlCode::NOT_SUPPORTED) {
        g.support = LinkSupport::NoNvlink;
    }
    // `-l` past the GPU's last link: say what NVML says about it (when the
    // GPU has links at all). Unverified: no public output of this case.
    if let (Some(n), Some(_)) = (only, last) {
        if g.links.is_empty() {
            let code = match raw::link_active(&dev, n) {
                Err(code) => code,
                Ok(_) => NvmlCode::INVALID_ARGUMENT,
            };
            g.links.push(LinkFacts::new(n, Err(code)));
        }
    }
    g
}

/// One field per link (scope = link number).
fn field(dev: &raw::Dev<'_>, id: u32, link: u32) -> Result<u64, NvmlCode> {
    raw::field_values(dev, &[(id, link)])
        .into_iter()
        .next()
        .unwrap_or(Err(NvmlCode::NOT_SUPPORTED))
        .map(|v| u64::try_from(v.as_i64()).unwrap_or(0))
}

fn facts(dev: &raw::Dev<'_>, mut f: LinkFacts, want: Want) -> LinkFacts {
    let link = f.link;
    let active = f.is_active();
    match want {
        Want::Speed if active => {
            f.speed_mbps = field(dev, field_id::NVML_FI_DEV_NVLINK_GET_SPEED, link);
        }
        Want::Capabilities => {
            f.capabilities = CAPS
                .iter()
                .map(|&c| raw::link_capability(dev, link, c))
                .collect();
        }
        Want::Errors if active => {
            f.errors = COUNTERS
                .iter()
                .map(|&c| raw::link_error_counter(dev, link, c))
                .collect();
        }
        Want::Remote if active => {
            f.remote_bus_id = raw::link_remote_bus_id(dev, link).map(|b| b.to_ascii_uppercase());
            f.remote_link = field(dev, field_id::NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID, link);
        }
        Want::LaneCrc if active => {
            // Lane k's count is field `..._CRC_DATA_ERROR_COUNT_L0 + k`
            // scoped to the link; lanes end where NVML stops answering.
            // Unverified: which NVML query nvidia-smi's `-ec` makes is not
            // public; this is the field family NVML documents per lane.
            let first = field_id::NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0;
            let lanes: Vec<u32> = (0..MAX_LANES).map(|k| first + k).collect();
            let wanted: Vec<(u32, u32)> = lanes.iter().map(|&id| (id, link)).collect();
            let values: Vec<Result<u64, NvmlCode>> = raw::field_values(dev, &wanted)
                .into_iter()
                .map(|r| r.map(|v| u64::try_from(v.as_i64()).unwrap_or(0)))
                .collect();
            let known = values.iter().rposition(|v| v.is_ok()).map_or(1, |k| k + 1);
            f.lane_crc = values.into_iter().take(known).collect();
        }
        Want::Throughput(kind) if active => {
            let (tx, rx) = match kind {
                Traffic::Data => (
                    field_id::NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX,
                    field_id::NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX,
                ),
                Traffic::Raw => (
                    field_id::NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX,
                    field_id::NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX,
                ),
            };
            let mut v = raw::field_values(dev, &[(tx, link), (rx, link)])
                .into_iter()
                .map(|r| r.map(|v| u64::try_from(v.as_i64()).unwrap_or(0)));
            f.tx_kib = v.next().unwrap_or(Err(NvmlCode::NOT_SUPPORTED));
            f.rx_kib = v.next().unwrap_or(Err(NvmlCode::NOT_SUPPORTED));
        }
        _ => {}
    }
    f
}
