//! `-i/--id`: which GPUs a command is about.
//!
//! An id may be an index, a UUID, a PCI bus id (full `00000000:83:00.0` or
//! short `83:00.0`, hex in either case) or a board serial; a comma list
//! selects several. Board serials are all digits too (`1650123456789`): an
//! all-digit element is an index when one exists, otherwise a serial. Every
//! element must match a GPU, else nvidia-smi's "No devices were found"
//! (exit 6). Rows come out in enumeration order.

use super::raw::{self, LookUp};
use super::Session;
use crate::error::NvqError;

/// A parsed PCI bus id: (domain, bus, device, function).
fn parse_bus_id(s: &str) -> Option<(Option<u32>, u32, u32, u32)> {
    let (rest, func) = s.rsplit_once('.')?;
    let parts: Vec<&str> = rest.split(':').collect();
    let hex = |t: &str| {
        (!t.is_empty() && t.len() <= 8 && t.chars().all(|c| c.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(t, 16).ok())
            .flatten()
    };
    let func = hex(func)?;
    match parts.as_slice() {
        [d, b, dev] => Some((Some(hex(d)?), hex(b)?, hex(dev)?, func)),
        [b, dev] => Some((None, hex(b)?, hex(dev)?, func)),
        _ => None,
    }
}

/// What `-i` matches against, for one GPU.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    /// NVML's index.
    pub index: u32,
    /// `GPU-…` or `MIG-…`, when it could be read.
    pub uuid: Option<String>,
    /// The board serial number, when it could be read.
    pub serial: Option<String>,
    /// The PCI bus id (`00000000:17:00.0`), when it could be read.
    pub bus_id: Option<String>,
}

impl Identity {
    /// Does one `-i` element name this GPU?
    pub fn matches(&self, id: &str) -> bool {
        if id.is_empty() {
            return false;
        }
        if id.bytes().all(|b| b.is_ascii_digit()) && id.parse::<u32>().ok() == Some(self.index) {
            return true;
        }
        if self
            .uuid
            .as_deref()
            .is_some_and(|u| u.eq_ignore_ascii_case(id))
        {
            return true;
        }
        if self.serial.as_deref() == Some(id) {
            return true;
        }
        if let (Some(want), Some(have)) = (
            parse_bus_id(id),
            self.bus_id.as_deref().and_then(parse_bus_id),
        ) {
            let domain_ok = want.0.is_none() || want.0 == have.0;
            return domain_ok && (want.1, want.2, want.3) == (have.1, have.2, have.3);
        }
        false
    }
}

/// Resolve `-i` to device indices in enumeration order.
pub fn select(session: &Session, id: Option<&str>) -> Result<Vec<u32>, NvqError> {
    let count = session.device_count().map_err(NvqError::Init)?;
    if count == 0 {
        return Err(NvqError::NoDevices);
    }
    let Some(id) = id else {
        return Ok((0..count).collect());
    };
    let wanted: Vec<&str> = id.split(',').map(str::trim).collect();
    let mut chosen = vec![false; count as usize];
    // NVML's own look-ups first: they touch no other GPU, so a hung GPU
    // that is not selected cannot stall the selection.
    let rest: Vec<&str> = wanted
        .iter()
        .copied()
        .filter(|w| {
            let hit = if is_index(w, count) {
                w.parse::<u32>().ok()
            } else {
                looked_up(session, w, count)
            };
            match hit.and_then(|i| chosen.get_mut(i as usize)) {
                Some(c) => {
                    *c = true;
                    false
                }
                None => true,
            }
        })
        .collect();
    if !rest.is_empty() {
        // What NVML's look-ups do not take (a UUID in other case, a bus id
        // without its domain, a serial two GPUs share): every GPU's identity.
        let identities: Vec<Identity> = (0..count).map(|i| identity(session, i)).collect();
        for w in &rest {
            match identities.iter().position(|ident| ident.matches(w)) {
                Some(i) => chosen[i] = true,
                None => return Err(NvqError::NoDevices),
            }
        }
    }
    Ok((0..count).filter(|i| chosen[*i as usize]).collect())
}

/// A UUID, full PCI bus id or board serial, found by NVML's handle look-up:
/// the GPU's index, if NVML knows it in that exact form.
fn looked_up(session: &Session, id: &str, count: u32) -> Option<u32> {
    let how = if parse_bus_id(id).is_some_and(|b| b.0.is_some()) {
        LookUp::PciBusId
    } else if !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()) {
        LookUp::Serial
    } else {
        LookUp::Uuid
    };
    let device = raw::look_up(session, how, id);
    raw::index(&device).ok().filter(|&i| i < count)
}

/// Is `id` the index of one of `count` GPUs? An all-digit id beyond the
/// last index may still be a board serial.
fn is_index(id: &str, count: u32) -> bool {
    !id.is_empty()
        && id.bytes().all(|b| b.is_ascii_digit())
        && id.parse::<u32>().is_ok_and(|i| i < count)
}

/// Read what the `-i` elements can match on.
fn identity(session: &Session, index: u32) -> Identity {
    let mut ident = Identity {
        index,
        ..Identity::default()
    };
    let d = raw::Dev::by_index(session, index);
    if d.handle().is_ok() {
        ident.uuid = raw::uuid(&d).ok();
        ident.serial = raw::serial(&d).ok();
        ident.bus_id = raw::pci_info(&d).ok().map(|p| p.bus_id);
    }
    ident
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu() -> Identity {
        Identity {
            index: 3,
            uuid: Some("GPU-1b724e78-eef5-4163-d43c-e4da15d41176".into()),
            serial: Some("1320421013145".into()),
            bus_id: Some("00000000:83:00.0".into()),
        }
    }

    #[test]
    fn each_kind_of_id() {
        let g = gpu();
        assert!(g.matches("3"));
        assert!(!g.matches("03x"));
        assert!(g.matches("GPU-1b724e78-eef5-4163-d43c-e4da15d41176"));
        assert!(g.matches("GPU-1B724E78-EEF5-4163-D43C-E4DA15D41176"));
        assert!(!g.matches("GPU-1b724e78"), "a UUID prefix is not a match");
        assert!(g.matches("1320421013145"));
        assert!(g.matches("00000000:83:00.0"));
        assert!(g.matches("0000:83:00.0"));
        assert!(g.matches("83:00.0"));
        assert!(g.matches("83:00.0"));
        assert!(!g.matches("84:00.0"));
        assert!(!g.matches(""));
        assert!(!g.matches("4"));
    }
}
