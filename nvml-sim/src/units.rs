//! S-class units (`nvmlUnit*`) and host interface cards
//! (`nvmlSystemGetHicVersion`): the scenario's `[[unit]]` and `[[hic]]`
//! entries. A scenario without any has none, as every machine that is not an
//! S-class system: the counts are 0.

use crate::call::*;
use crate::scenario::{Unit, MAX_UNITS};
use crate::state::*;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::c_uint;

/// Unit handles are addresses inside this (never written) block.
static UNIT_SPACE: [u8; MAX_UNITS] = [0; MAX_UNITS];

fn unit_handle(i: usize) -> nvmlUnit_t {
    UNIT_SPACE.as_ptr().wrapping_add(i) as nvmlUnit_t
}

fn unit_index(h: nvmlUnit_t) -> Option<usize> {
    let off = (h as usize).checked_sub(UNIT_SPACE.as_ptr() as usize)?;
    (off < MAX_UNITS).then_some(off)
}

/// A call on one unit: `f` gets the unit's scenario entry and the state.
fn unit_fn(sym: &'static str, h: nvmlUnit_t, f: impl FnOnce(&Unit, &State) -> R) -> nvmlReturn_t {
    sys_fn(sym, |st, _| {
        let u = unit_index(h)
            .and_then(|i| st.sc.unit.get(i))
            .ok_or(INVALID_ARGUMENT)?;
        f(u, st)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlUnitGetCount(unitCount: *mut c_uint) -> nvmlReturn_t {
    sys_fn("nvmlUnitGetCount", |st, _| {
        let o = nn(unitCount)?;
        o.set(c_uint::try_from(st.sc.unit.len()).map_err(|_| UNKNOWN)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlUnitGetHandleByIndex(
    index: c_uint,
    unit: *mut nvmlUnit_t,
) -> nvmlReturn_t {
    sys_fn("nvmlUnitGetHandleByIndex", |st, _| {
        let o = nn(unit)?;
        if index as usize >= st.sc.unit.len() {
            return Err(INVALID_ARGUMENT);
        }
        o.set(unit_handle(index as usize));
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlUnitGetUnitInfo(
    unit: nvmlUnit_t,
    info: *mut nvmlUnitInfo_t,
) -> nvmlReturn_t {
    unit_fn("nvmlUnitGetUnitInfo", unit, |u, _| {
        let o = nn(info)?;
        let (Some(name), Some(id), Some(serial), Some(fw)) =
            (&u.name, &u.id, &u.serial, &u.firmware_version)
        else {
            return Err(NOT_SUPPORTED);
        };
        // SAFETY: an all-zero nvmlUnitInfo_t (four char arrays) is valid.
        let mut v: nvmlUnitInfo_t = unsafe { std::mem::zeroed() };
        fill_chars(&mut v.name, name);
        fill_chars(&mut v.id, id);
        fill_chars(&mut v.serial, serial);
        fill_chars(&mut v.firmwareVersion, fw);
        o.set(v);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlUnitGetLedState(
    unit: nvmlUnit_t,
    state: *mut nvmlLedState_t,
) -> nvmlReturn_t {
    unit_fn("nvmlUnitGetLedState", unit, |u, _| {
        let o = nn(state)?;
        let color = match u.led_color.as_deref() {
            Some("GREEN") => nvmlLedColor_enum_NVML_LED_COLOR_GREEN,
            Some("AMBER") => nvmlLedColor_enum_NVML_LED_COLOR_AMBER,
            _ => return Err(NOT_SUPPORTED),
        };
        // SAFETY: an all-zero nvmlLedState_t (chars and an enum) is valid.
        let mut v: nvmlLedState_t = unsafe { std::mem::zeroed() };
        fill_chars(&mut v.cause, u.led_cause.as_deref().unwrap_or(""));
        v.color = color;
        o.set(v);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlUnitGetPsuInfo(
    unit: nvmlUnit_t,
    psu: *mut nvmlPSUInfo_t,
) -> nvmlReturn_t {
    unit_fn("nvmlUnitGetPsuInfo", unit, |u, _| {
        let o = nn(psu)?;
        let (Some(state), Some(voltage), Some(current), Some(power)) =
            (&u.psu_state, u.psu_voltage, u.psu_current, u.psu_power)
        else {
            return Err(NOT_SUPPORTED);
        };
        // SAFETY: an all-zero nvmlPSUInfo_t (chars and integers) is valid.
        let mut v: nvmlPSUInfo_t = unsafe { std::mem::zeroed() };
        fill_chars(&mut v.state, state);
        v.voltage = voltage;
        v.current = current;
        v.power = power;
        o.set(v);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlUnitGetTemperature(
    unit: nvmlUnit_t,
    type_: c_uint,
    temp: *mut c_uint,
) -> nvmlReturn_t {
    unit_fn("nvmlUnitGetTemperature", unit, |u, _| {
        let o = nn(temp)?;
        let v = match type_ {
            0 => u.temperature_intake,
            1 => u.temperature_exhaust,
            2 => u.temperature_board,
            _ => return Err(INVALID_ARGUMENT),
        };
        o.set(v.ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlUnitGetFanSpeedInfo(
    unit: nvmlUnit_t,
    fanSpeeds: *mut nvmlUnitFanSpeeds_t,
) -> nvmlReturn_t {
    unit_fn("nvmlUnitGetFanSpeedInfo", unit, |u, _| {
        let o = nn(fanSpeeds)?;
        if u.fan.is_empty() {
            return Err(NOT_SUPPORTED);
        }
        // SAFETY: an all-zero nvmlUnitFanSpeeds_t (integers and enums) is valid.
        let mut v: nvmlUnitFanSpeeds_t = unsafe { std::mem::zeroed() };
        for (slot, f) in v.fans.iter_mut().zip(&u.fan) {
            slot.speed = f.speed;
            slot.state = if f.failed {
                nvmlFanState_enum_NVML_FAN_FAILED
            } else {
                nvmlFanState_enum_NVML_FAN_NORMAL
            };
        }
        v.count = c_uint::try_from(u.fan.len().min(v.fans.len())).map_err(|_| UNKNOWN)?;
        o.set(v);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlUnitGetDevices(
    unit: nvmlUnit_t,
    deviceCount: *mut c_uint,
    devices: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    unit_fn("nvmlUnitGetDevices", unit, |u, _| {
        put_list(
            deviceCount,
            devices,
            u.devices.iter().map(|&d| device_handle(d as usize)),
        )
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetHicVersion(
    hwbcCount: *mut c_uint,
    hwbcEntries: *mut nvmlHwbcEntry_t,
) -> nvmlReturn_t {
    sys_fn("nvmlSystemGetHicVersion", |st, _| {
        put_list(
            hwbcCount,
            hwbcEntries,
            st.sc.hic.iter().map(|h| {
                // SAFETY: an all-zero nvmlHwbcEntry_t (an integer and chars) is valid.
                let mut e: nvmlHwbcEntry_t = unsafe { std::mem::zeroed() };
                e.hwbcId = h.id;
                fill_chars(&mut e.firmwareVersion, &h.firmware);
                e
            }),
        )
    })
}
