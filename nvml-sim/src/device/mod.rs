//! Device getters, one file per domain: identity, PCIe, modes, fans, memory, utilization, ECC,
//! temperature and power, clocks, MIG, GSP/fabric/platform, field values. This file holds what
//! they share: the struct-version tags and the getter macros (`scalar!`, `string!`, `pair!`,
//! `util_sampled!`), defined before the `mod` lines so that every domain's file sees them.

use crate::call::*;
use crate::pci::pci_struct;
use crate::scenario::{Clocks, EccCounts, FieldScalar};
use crate::state::*;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_char, c_int, c_uint, c_ulong, c_ulonglong};

/// `sizeof(T) | version << 24`, NVML's versioned-struct tag.
const fn struct_version<T>(v: u32) -> u32 {
    std::mem::size_of::<T>() as u32 | (v << 24)
}

pub(crate) const MEMORY_V2_VERSION: u32 = struct_version::<nvmlMemory_v2_t>(2);
const PCI_INFO_EXT_V1: u32 = struct_version::<nvmlPciInfoExt_v1_t>(1);
const MARGIN_TEMP_V1: u32 = struct_version::<nvmlMarginTemperature_v1_t>(1);
const FABRIC_V3: u32 = struct_version::<nvmlGpuFabricInfo_v3_t>(3);
const PLATFORM_V2: u32 = struct_version::<nvmlPlatformInfo_v2_t>(2);
const SRAM_ECC_V1: u32 = struct_version::<nvmlEccSramErrorStatus_v1_t>(1);
const ADDRESSING_V1: u32 = struct_version::<nvmlDeviceAddressingMode_v1_t>(1);
const PDI_V1: u32 = struct_version::<nvmlPdi_v1_t>(1);
const REPAIR_V1: u32 = struct_version::<nvmlRepairStatus_v1_t>(1);
const CAPS_V1: u32 = struct_version::<nvmlDeviceCapabilities_v1_t>(1);
const PROFILES_INFO_V1: u32 = struct_version::<nvmlWorkloadPowerProfileProfilesInfo_v1_t>(1);
const PROFILE_INFO_V1: u32 = struct_version::<nvmlWorkloadPowerProfileInfo_v1_t>(1);
const CURRENT_PROFILES_V1: u32 = struct_version::<nvmlWorkloadPowerProfileCurrentProfiles_v1_t>(1);
const DRAM_ENCRYPTION_V1: u32 = struct_version::<nvmlDramEncryptionInfo_v1_t>(1);

/// Single-value getter: `fn(device, *mut T)` reading one (series) scenario field.
macro_rules! scalar {
    ($name:ident, $ty:ty, |$d:ident| $field:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(device: nvmlDevice_t, out: *mut $ty) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                let o = nn(out)?;
                let $d = c.dev;
                o.set(c.val(&$field)?);
                Ok(())
            })
        }
    };
}

/// String getter: `fn(device, *mut c_char, length)`.
macro_rules! string {
    ($name:ident, |$d:ident| $field:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: nvmlDevice_t,
            buf: *mut c_char,
            length: c_uint,
        ) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                if buf.is_null() {
                    return Err(INVALID_ARGUMENT);
                }
                let $d = c.dev;
                put_str(buf, length, $field.as_deref().ok_or(NOT_SUPPORTED)?)
            })
        }
    };
}

/// Current/pending pair getter: `fn(device, *mut T, *mut T)`.
macro_rules! pair {
    ($name:ident, $ty:ty, |$d:ident| $field:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: nvmlDevice_t,
            current: *mut $ty,
            pending: *mut $ty,
        ) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                let (oc, op) = (nn(current)?, nn(pending)?);
                let $d = c.dev;
                let f = &$field;
                let (cur, pen) = (c.val(&f.current)?, c.val(&f.pending)?);
                oc.set(cur);
                op.set(pen);
                Ok(())
            })
        }
    };
}

/// Utilization-with-sampling-period getter: `fn(device, *mut util, *mut period)`.
macro_rules! util_sampled {
    ($name:ident, |$d:ident| $field:expr) => {
        /// # Safety
        /// An NVML client's contract: each pointer argument is null or valid for
        /// what NVML documents for this function, and a handle is one this library
        /// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            device: nvmlDevice_t,
            utilization: *mut c_uint,
            samplingPeriodUs: *mut c_uint,
        ) -> nvmlReturn_t {
            dev_fn(stringify!($name), device, |c| {
                let (ou, op) = (nn(utilization)?, nn(samplingPeriodUs)?);
                let $d = c.dev;
                ou.set(c.val(&$field)?);
                op.set(c.dev.utilization.sampling_period_us.unwrap_or(167_000));
                Ok(())
            })
        }
    };
}

pub(crate) mod clocks;
pub(crate) mod ecc;
pub(crate) mod fans;
pub(crate) mod field_values;
pub(crate) mod identity;
pub(crate) mod memory;
pub(crate) mod mig;
pub(crate) mod modes;
pub(crate) mod pcie;
pub(crate) mod platform;
pub(crate) mod thermal;
pub(crate) mod utilization;
