//! Turning NVML answers into [`NvmlCode`]s.

use crate::model::NvmlCode;
use nvml_wrapper::error::NvmlError;

impl From<&NvmlError> for NvmlCode {
    fn from(e: &NvmlError) -> Self {
        #[allow(deprecated)]
        let n = match e {
            NvmlError::Uninitialized => 1,
            NvmlError::InvalidArg => 2,
            NvmlError::NotSupported => 3,
            NvmlError::NoPermission => 4,
            NvmlError::AlreadyInitialized => 5,
            NvmlError::NotFound => 6,
            NvmlError::InsufficientSize(_) => 7,
            NvmlError::InsufficientPower => 8,
            NvmlError::DriverNotLoaded => 9,
            NvmlError::Timeout => 10,
            NvmlError::IrqIssue => 11,
            NvmlError::LibraryNotFound | NvmlError::LibloadingError(_) => 12,
            NvmlError::FunctionNotFound | NvmlError::FailedToLoadSymbol(_) => 13,
            NvmlError::CorruptedInfoROM => 14,
            NvmlError::GpuLost => 15,
            NvmlError::ResetRequired => 16,
            NvmlError::OperatingSystem => 17,
            NvmlError::LibRmVersionMismatch => 18,
            NvmlError::InUse => 19,
            NvmlError::InsufficientMemory => 20,
            NvmlError::NoData => 21,
            NvmlError::VgpuEccNotSupported => 22,
            NvmlError::UnexpectedVariant(n) => *n,
            _ => 999,
        };
        NvmlCode(n)
    }
}

impl From<NvmlError> for NvmlCode {
    fn from(e: NvmlError) -> Self {
        NvmlCode::from(&e)
    }
}

/// Turn a raw `nvmlReturn_t` into a `Result`.
pub fn check(ret: u32) -> Result<(), NvmlCode> {
    if ret == 0 {
        Ok(())
    } else {
        Err(NvmlCode(ret))
    }
}
