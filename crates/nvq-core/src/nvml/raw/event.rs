//! XID errors as NVML events through nvml-wrapper: an event set
//! (`nvmlEventSetCreate`), the GPUs registered in it
//! (`nvmlDeviceGetSupportedEventTypes`, `nvmlDeviceRegisterEvents`) and the
//! wait for the next one (`nvmlEventSetWait_v2`).

use crate::nvml::Session;
use nvml_wrapper::bitmasks::event::EventTypes;
use nvml_wrapper::enums::event::XidError;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::EventSet;

/// An event set that collects critical XID errors.
pub struct XidEvents<'s> {
    session: &'s Session,
    /// `None` once a failed registration made nvml-wrapper release it.
    set: Option<EventSet<'s>>,
}

/// What became of a GPU asked to be watched.
#[derive(Debug)]
pub enum Watch {
    /// Its critical XID errors now arrive in the set.
    Watched,
    /// NVML has no GPU of that index.
    NotFound,
    /// The GPU does not report XID errors as events.
    Unsupported,
    /// The registration failed, and the set is gone.
    Failed(NvmlError),
}

/// A new, empty event set.
pub fn xid_events(session: &Session) -> Result<XidEvents<'_>, NvmlError> {
    let set = session.nvml().create_event_set()?;
    Ok(XidEvents {
        session,
        set: Some(set),
    })
}

impl XidEvents<'_> {
    /// Watch GPU `index` (NVML's enumeration) for critical XID errors.
    pub fn watch(&mut self, index: u32) -> Watch {
        let Ok(d) = self.session.nvml().device_by_index(index) else {
            return Watch::NotFound;
        };
        let supported = d
            .supported_event_types()
            .is_ok_and(|t| t.contains(EventTypes::CRITICAL_XID_ERROR));
        if !supported {
            return Watch::Unsupported;
        }
        let Some(set) = self.set.take() else {
            return Watch::Failed(NvmlError::Uninitialized);
        };
        match d.register_events(EventTypes::CRITICAL_XID_ERROR, set) {
            Ok(set) => {
                self.set = Some(set);
                Watch::Watched
            }
            Err(e) => Watch::Failed(e.error),
        }
    }

    /// Wait up to `ms` for the next event: `Some((GPU index, XID))` for a
    /// critical XID error (index `u32::MAX` when NVML cannot say, XID 0 when
    /// it has none), `None` for another event or none in time.
    pub fn wait(&self, ms: u32) -> Result<Option<(u32, u64)>, NvmlError> {
        let Some(set) = &self.set else {
            return Err(NvmlError::Uninitialized);
        };
        match set.wait(ms) {
            Ok(ev) if ev.event_type.contains(EventTypes::CRITICAL_XID_ERROR) => {
                let code = match ev.event_data {
                    Some(XidError::Value(v)) => v,
                    _ => 0,
                };
                Ok(Some((ev.device.index().unwrap_or(u32::MAX), code)))
            }
            Ok(_) | Err(NvmlError::Timeout) => Ok(None),
            Err(e) => Err(e),
        }
    }
}
