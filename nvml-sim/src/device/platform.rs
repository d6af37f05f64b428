//! Device getters: GSP, fabric, platform.

use super::*;

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGspFirmwareMode(
    device: nvmlDevice_t,
    isEnabled: *mut c_uint,
    defaultMode: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGspFirmwareMode", device, |c| {
        let (a, b) = (nn(isEnabled)?, nn(defaultMode)?);
        let g = &c.dev.gsp;
        let (e, d) = (c.val(&g.enabled)?, c.val(&g.default_enabled)?);
        a.set(e);
        b.set(d);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGspFirmwareVersion(
    device: nvmlDevice_t,
    version: *mut c_char,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGspFirmwareVersion", device, |c| {
        if version.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        let v = c.dev.gsp.version.as_deref().ok_or(NOT_SUPPORTED)?;
        put_str(version, NVML_GSP_FIRMWARE_VERSION_BUF_SIZE, v)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetC2cModeInfoV(
    device: nvmlDevice_t,
    c2cModeInfo: *mut nvmlC2cModeInfo_v1_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetC2cModeInfoV", device, |c| {
        let o = nn(c2cModeInfo)?;
        let v = c.val(&c.dev.c2c_mode)?;
        o.set(nvmlC2cModeInfo_v1_t { isC2cEnabled: v });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetDramEncryptionMode(
    device: nvmlDevice_t,
    current: *mut nvmlDramEncryptionInfo_t,
    pending: *mut nvmlDramEncryptionInfo_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetDramEncryptionMode", device, |c| {
        let (cur, pend) = (nn(current)?, nn(pending)?);
        // SAFETY: reading the caller-set version fields of non-null structs.
        if unsafe { ((*cur.ptr()).version, (*pend.ptr()).version) }
            != (DRAM_ENCRYPTION_V1, DRAM_ENCRYPTION_V1)
        {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let mode = &c.dev.dram_encryption;
        let (a, b) = (c.val(&mode.current)?, c.val(&mode.pending)?);
        cur.set(nvmlDramEncryptionInfo_v1_t {
            version: DRAM_ENCRYPTION_V1,
            encryptionState: a,
        });
        pend.set(nvmlDramEncryptionInfo_v1_t {
            version: DRAM_ENCRYPTION_V1,
            encryptionState: b,
        });
        Ok(())
    })
}

/// `nvmlHostname_v1_t` (NVML 13.x, newer than nvml-wrapper-sys 0.10's table).
#[repr(C)]
pub struct NvmlHostnameV1 {
    pub value: [c_char; 64],
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetHostname_v1(
    device: nvmlDevice_t,
    hostname: *mut NvmlHostnameV1,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetHostname_v1", device, |c| {
        if hostname.is_null() {
            return Err(INVALID_ARGUMENT);
        }
        let h = c.dev.hostname.as_deref().ok_or(NOT_SUPPORTED)?;
        // SAFETY: non-null pointer to a caller-owned 64-byte buffer.
        let buf = unsafe { (*hostname).value.as_mut_ptr() };
        put_str(buf, 64, h)
    })
}

fn hex16(s: &str) -> [u8; 16] {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    let mut out = [0u8; 16];
    for (i, pair) in digits.chunks(2).take(16).enumerate() {
        let txt = std::str::from_utf8(pair).unwrap_or("0");
        out[i] = u8::from_str_radix(txt, 16).unwrap_or(0);
    }
    out
}

fn fabric<'a>(c: &Ctx<'a>) -> R<(&'a crate::scenario::Fabric, [u8; 16], u32)> {
    let f = c.dev.fabric.as_ref().ok_or(NOT_SUPPORTED)?;
    let uuid = f.cluster_uuid.as_deref().map(hex16).unwrap_or([0; 16]);
    let status = match &f.status {
        Some(s) => s.value().unwrap_or(UNKNOWN),
        None => SUCCESS,
    };
    Ok((f, uuid, status))
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuFabricInfoV(
    device: nvmlDevice_t,
    gpuFabricInfo: *mut nvmlGpuFabricInfoV_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGpuFabricInfoV", device, |c| {
        let o = nn(gpuFabricInfo)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != FABRIC_V3 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let (f, uuid, status) = fabric(c)?;
        o.set(nvmlGpuFabricInfo_v3_t {
            version: FABRIC_V3,
            clusterUuid: uuid,
            status,
            cliqueId: f.clique_id,
            state: f.state,
            healthMask: f.health_mask,
            healthSummary: f.health_summary,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetGpuFabricInfo(
    device: nvmlDevice_t,
    gpuFabricInfo: *mut nvmlGpuFabricInfo_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetGpuFabricInfo", device, |c| {
        let o = nn(gpuFabricInfo)?;
        let (f, uuid, status) = fabric(c)?;
        o.set(nvmlGpuFabricInfo_t {
            clusterUuid: uuid,
            status,
            cliqueId: f.clique_id,
            state: f.state,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetPlatformInfo(
    device: nvmlDevice_t,
    platformInfo: *mut nvmlPlatformInfo_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetPlatformInfo", device, |c| {
        let o = nn(platformInfo)?;
        // SAFETY: reading the caller-set version field of a non-null struct.
        if unsafe { (*o.ptr()).version } != PLATFORM_V2 {
            return Err(ARGUMENT_VERSION_MISMATCH);
        }
        let p = c.dev.platform.as_ref().ok_or(NOT_SUPPORTED)?;
        let mut serial = [0u8; 16];
        for (d, b) in serial
            .iter_mut()
            .zip(p.chassis_serial_number.as_deref().unwrap_or("").bytes())
        {
            *d = b;
        }
        o.set(nvmlPlatformInfo_v2_t {
            version: PLATFORM_V2,
            ibGuid: p.ib_guid.as_deref().map(hex16).unwrap_or([0; 16]),
            chassisSerialNumber: serial,
            slotNumber: p.slot_number,
            trayIndex: p.tray_index,
            hostId: p.host_id,
            peerType: p.peer_type,
            moduleId: p.module_id,
        });
        Ok(())
    })
}
