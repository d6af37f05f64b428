//! Device getters: field values.

use super::*;

fn now_us() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetFieldValues(
    device: nvmlDevice_t,
    valuesCount: c_int,
    values: *mut nvmlFieldValue_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetFieldValues", device, |c| {
        if values.is_null() || valuesCount < 0 {
            return Err(INVALID_ARGUMENT);
        }
        let ts = now_us();
        for i in 0..valuesCount as usize {
            // SAFETY: the caller passes `valuesCount` structs with fieldId/scopeId set.
            let fv = unsafe { &mut *values.add(i) };
            let keys = [
                format!("{}:{}", fv.fieldId, fv.scopeId),
                fv.fieldId.to_string(),
            ];
            let found = keys.iter().find_map(|k| c.dev.field_values.get(k));
            fv.timestamp = ts;
            fv.latencyUsec = 0;
            fv.value = nvmlValue_t { ullVal: 0 };
            fv.valueType = 3;
            fv.nvmlReturn = NOT_SUPPORTED;
            let Some(s) = found.and_then(|v| v.at_field(c.idx())) else {
                // NVLink fields that `[device.topology]` describes (see `topo::nvlink_field`).
                if let Some(v) = crate::topo::nvlink_field(c.dev, fv.fieldId, fv.scopeId) {
                    fv.value = nvmlValue_t { ullVal: v };
                    fv.nvmlReturn = SUCCESS;
                }
                continue;
            };
            match s {
                FieldScalar::Int(v) if v >= 0 => {
                    fv.valueType = 3;
                    fv.value = nvmlValue_t { ullVal: v as u64 };
                    fv.nvmlReturn = SUCCESS;
                }
                FieldScalar::Int(v) => {
                    fv.valueType = 4;
                    fv.value = nvmlValue_t { sllVal: v };
                    fv.nvmlReturn = SUCCESS;
                }
                FieldScalar::Float(v) => {
                    fv.valueType = 0;
                    fv.value = nvmlValue_t { dVal: v };
                    fv.nvmlReturn = SUCCESS;
                }
                FieldScalar::Error(e) => {
                    let code = match e.trim().parse::<u32>() {
                        Ok(n) => n,
                        Err(_) => crate::scenario::Code::Name(e).value().unwrap_or(UNKNOWN),
                    };
                    fv.nvmlReturn = code;
                }
            }
        }
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetAttributes_v2(
    device: nvmlDevice_t,
    attributes: *mut nvmlDeviceAttributes_t,
) -> nvmlReturn_t {
    any_fn("nvmlDeviceGetAttributes_v2", device, |c| {
        let o = nn(attributes)?;
        // Only MIG devices carry attributes in the simulator.
        let a = c.mig().and_then(|m| m.attributes).ok_or(NOT_SUPPORTED)?;
        o.set(nvmlDeviceAttributes_t {
            multiprocessorCount: a.multiprocessor_count,
            sharedCopyEngineCount: a.shared_copy_engine_count,
            sharedDecoderCount: a.shared_decoder_count,
            sharedEncoderCount: a.shared_encoder_count,
            sharedJpegCount: a.shared_jpeg_count,
            sharedOfaCount: a.shared_ofa_count,
            gpuInstanceSliceCount: a.gpu_instance_slice_count,
            computeInstanceSliceCount: a.compute_instance_slice_count,
            memorySizeMB: a.memory_size_mb,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetVgpuHeterogeneousMode(
    device: nvmlDevice_t,
    pHeterogeneousMode: *mut nvmlVgpuHeterogeneousMode_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetVgpuHeterogeneousMode", device, |c| {
        let o = nn(pHeterogeneousMode)?;
        let mode = c.val(&c.dev.vgpu_heterogeneous_mode)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        let version = unsafe { (*o.ptr()).version };
        o.set(nvmlVgpuHeterogeneousMode_t { version, mode });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetBridgeChipInfo(
    device: nvmlDevice_t,
    bridgeHierarchy: *mut nvmlBridgeChipHierarchy_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetBridgeChipInfo", device, |c| {
        let o = nn(bridgeHierarchy)?;
        let chips = c.dev.bridge_chips.as_ref().ok_or(NOT_SUPPORTED)?;
        // SAFETY: an all-zero hierarchy (integers and enums) is valid.
        let mut h: nvmlBridgeChipHierarchy_t = unsafe { std::mem::zeroed() };
        for (slot, chip) in h.bridgeChipInfo.iter_mut().zip(chips) {
            slot.type_ = if chip.kind == "BR04" {
                nvmlBridgeChipType_enum_NVML_BRIDGE_CHIP_BRO4
            } else {
                nvmlBridgeChipType_enum_NVML_BRIDGE_CHIP_PLX
            };
            slot.fwVersion = chip.fw_version;
        }
        h.bridgeCount =
            u8::try_from(chips.len().min(h.bridgeChipInfo.len())).map_err(|_| UNKNOWN)?;
        o.set(h);
        Ok(())
    })
}

/// A 255-bit NVML mask with the bits of `ids` set (ids of 255 and above are
/// left out).
fn mask255(ids: &[u32]) -> nvmlMask255_t {
    let mut m = nvmlMask255_t { mask: [0; 8] };
    for &id in ids.iter().filter(|&&id| id < 255) {
        if let Some(word) = m.mask.get_mut((id / 32) as usize) {
            *word |= 1 << (id % 32);
        }
    }
    m
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceWorkloadPowerProfileGetProfilesInfo(
    device: nvmlDevice_t,
    profilesInfo: *mut nvmlWorkloadPowerProfileProfilesInfo_t,
) -> nvmlReturn_t {
    dev_fn(
        "nvmlDeviceWorkloadPowerProfileGetProfilesInfo",
        device,
        |c| {
            let o = nn(profilesInfo)?;
            // SAFETY: reading the caller-set version field of a non-null struct.
            if unsafe { (*o.ptr()).version } != PROFILES_INFO_V1 {
                return Err(ARGUMENT_VERSION_MISMATCH);
            }
            let p = c.dev.power_profiles.as_ref().ok_or(NOT_SUPPORTED)?;
            // SAFETY: all-zero bytes are a valid value of this plain C struct.
            let mut info: nvmlWorkloadPowerProfileProfilesInfo_v1_t = unsafe { std::mem::zeroed() };
            info.version = PROFILES_INFO_V1;
            info.perfProfilesMask = mask255(&p.supported);
            for &id in &p.supported {
                if let Some(slot) = info.perfProfile.get_mut(id as usize) {
                    slot.version = PROFILE_INFO_V1;
                    slot.profileId = id;
                }
            }
            o.set(info);
            Ok(())
        },
    )
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceWorkloadPowerProfileGetCurrentProfiles(
    device: nvmlDevice_t,
    currentProfiles: *mut nvmlWorkloadPowerProfileCurrentProfiles_t,
) -> nvmlReturn_t {
    dev_fn(
        "nvmlDeviceWorkloadPowerProfileGetCurrentProfiles",
        device,
        |c| {
            let o = nn(currentProfiles)?;
            // SAFETY: reading the caller-set version field of a non-null struct.
            if unsafe { (*o.ptr()).version } != CURRENT_PROFILES_V1 {
                return Err(ARGUMENT_VERSION_MISMATCH);
            }
            let p = c.dev.power_profiles.as_ref().ok_or(NOT_SUPPORTED)?;
            o.set(nvmlWorkloadPowerProfileCurrentProfiles_v1_t {
                version: CURRENT_PROFILES_V1,
                perfProfilesMask: mask255(&p.supported),
                requestedProfilesMask: mask255(&p.requested),
                enforcedProfilesMask: mask255(&p.enforced),
            });
            Ok(())
        },
    )
}
