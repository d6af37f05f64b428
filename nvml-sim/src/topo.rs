//! Topology: common ancestors, CPU and memory affinity, NUMA node, NVLink state and peers, from
//! each device's `[device.topology]`.

use crate::call::*;
use crate::scenario::{parse_id_list, Device, Topology};
use crate::state::*;
use nvml_wrapper_sys::bindings::*;
use std::os::raw::{c_uint, c_ulong};

fn topo(d: &Device) -> R<&Topology> {
    d.topology.as_ref().ok_or(NOT_SUPPORTED)
}

/// NVML's topology level between two PCI paths (NUMA node, host bridge, switches...).
pub(crate) fn common_level(a: &[String], b: &[String]) -> R<nvmlGpuTopologyLevel_t> {
    if a.len() < 2 || b.len() < 2 {
        return Err(NOT_SUPPORTED);
    }
    if a[0] != b[0] {
        return Ok(nvmlGpuLevel_enum_NVML_TOPOLOGY_SYSTEM);
    }
    if a[1] != b[1] {
        return Ok(nvmlGpuLevel_enum_NVML_TOPOLOGY_NODE);
    }
    let shared = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    Ok(if shared == 2 {
        nvmlGpuLevel_enum_NVML_TOPOLOGY_HOSTBRIDGE
    } else if shared == a.len() && shared == b.len() {
        // Both sit right below the same switch: one bridge between them.
        nvmlGpuLevel_enum_NVML_TOPOLOGY_SINGLE
    } else {
        nvmlGpuLevel_enum_NVML_TOPOLOGY_MULTIPLE
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTopologyCommonAncestor(
    device1: nvmlDevice_t,
    device2: nvmlDevice_t,
    path_info: *mut nvmlGpuTopologyLevel_t,
) -> nvmlReturn_t {
    pair_fn(
        "nvmlDeviceGetTopologyCommonAncestor",
        device1,
        device2,
        |c, other| {
            let o = nn(path_info)?;
            let level = common_level(&topo(c.dev)?.pci_path, &topo(other)?.pci_path)?;
            o.set(level);
            Ok(())
        },
    )
}

/// Write the members of a CPU or node list into `size` words of bits.
fn put_mask(list: Option<&str>, size: c_uint, out: *mut c_ulong) -> R {
    let ids = parse_id_list(list.ok_or(NOT_SUPPORTED)?).ok_or(UNKNOWN)?;
    if out.is_null() || size == 0 {
        return Err(INVALID_ARGUMENT);
    }
    let bits = c_ulong::BITS;
    let mut words = vec![0 as c_ulong; size as usize];
    for id in ids {
        let w = (id / bits) as usize;
        if let Some(word) = words.get_mut(w) {
            *word |= 1 << (id % bits);
        }
    }
    for (i, w) in words.into_iter().enumerate() {
        // SAFETY: `out` is non-null and the caller gave room for `size` words.
        unsafe { out.add(i).write(w) };
    }
    Ok(())
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCpuAffinity(
    device: nvmlDevice_t,
    cpu_set_size: c_uint,
    cpu_set: *mut c_ulong,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetCpuAffinity", device, |c| {
        put_mask(topo(c.dev)?.cpu_affinity.as_deref(), cpu_set_size, cpu_set)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetCpuAffinityWithinScope(
    device: nvmlDevice_t,
    cpu_set_size: c_uint,
    cpu_set: *mut c_ulong,
    _scope: nvmlAffinityScope_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetCpuAffinityWithinScope", device, |c| {
        put_mask(topo(c.dev)?.cpu_affinity.as_deref(), cpu_set_size, cpu_set)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetMemoryAffinity(
    device: nvmlDevice_t,
    node_set_size: c_uint,
    node_set: *mut c_ulong,
    _scope: nvmlAffinityScope_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetMemoryAffinity", device, |c| {
        put_mask(
            topo(c.dev)?.memory_affinity.as_deref(),
            node_set_size,
            node_set,
        )
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetNumaNodeId(
    device: nvmlDevice_t,
    node: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetNumaNodeId", device, |c| {
        let o = nn(node)?;
        o.set(topo(c.dev)?.numa_node.ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

/// What is at the far end of a link.
enum Remote<'a> {
    Gpu(u32),
    Switch(&'a str),
}

/// The far end of `link` (`None`: an inactive link); INVALID_ARGUMENT past the last link.
fn link_peer(t: &Topology, link: c_uint) -> R<Option<Remote<'_>>> {
    let bonds = t.nvlink.as_ref().ok_or(NOT_SUPPORTED)?;
    let mut first = 0u32;
    for b in bonds {
        if link < first.saturating_add(b.links) {
            return Ok(match (b.peer, &b.switch) {
                (Some(p), _) => Some(Remote::Gpu(p)),
                (None, Some(s)) => Some(Remote::Switch(s)),
                (None, None) => None,
            });
        }
        first = first.saturating_add(b.links);
    }
    if link < first.saturating_add(t.nvlink_inactive) {
        Ok(None)
    } else {
        Err(INVALID_ARGUMENT)
    }
}

/// A field value that a device's NVLink description answers when its `field_values` do not
/// (`nvidia-smi nvlink -R`, `-gt`, `-ec`): `field` scoped to link `link`. `None`: NVML's
/// NOT_SUPPORTED (no such description, an inactive link, another field).
pub(crate) fn nvlink_field(d: &Device, field: c_uint, link: c_uint) -> Option<u64> {
    use nvml_wrapper_sys::bindings::field_id::*;
    let t = d.topology.as_ref()?;
    link_peer(t, link).ok()??;
    match field {
        NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID => {
            let mut first = 0u32;
            for b in t.nvlink.as_ref()? {
                if link < first.saturating_add(b.links) {
                    let k = usize::try_from(link - first).ok()?;
                    return b.remote_links.as_ref()?.get(k).map(|&r| u64::from(r));
                }
                first = first.saturating_add(b.links);
            }
            None
        }
        NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX..=NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX => {
            let k = (field - NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX) as usize;
            t.nvlink_throughput.as_ref()?.get(k).copied()
        }
        NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0..=NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L5 => {
            let k = (field - NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L0) as usize;
            t.nvlink_lane_crc.as_ref()?.get(k).copied()
        }
        _ => None,
    }
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetNvLinkState(
    device: nvmlDevice_t,
    link: c_uint,
    is_active: *mut nvmlEnableState_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetNvLinkState", device, |c| {
        let o = nn(is_active)?;
        let active = link_peer(topo(c.dev)?, link)?.is_some();
        o.set(if active {
            nvmlEnableState_enum_NVML_FEATURE_ENABLED
        } else {
            nvmlEnableState_enum_NVML_FEATURE_DISABLED
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetNvLinkRemoteDeviceType(
    device: nvmlDevice_t,
    link: c_uint,
    kind: *mut nvmlIntNvLinkDeviceType_t,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetNvLinkRemoteDeviceType", device, |c| {
        let o = nn(kind)?;
        o.set(match link_peer(topo(c.dev)?, link)?.ok_or(NOT_SUPPORTED)? {
            Remote::Gpu(_) => nvmlIntNvLinkDeviceType_enum_NVML_NVLINK_DEVICE_TYPE_GPU,
            Remote::Switch(_) => nvmlIntNvLinkDeviceType_enum_NVML_NVLINK_DEVICE_TYPE_SWITCH,
        });
        Ok(())
    })
}

/// The PCI info an NVSwitch of bus id `bus_id` reports.
fn switch_pci(bus_id: &str) -> R<nvmlPciInfo_t> {
    let (domain, bus, device) = crate::scenario::parse_bus_id(bus_id).ok_or(UNKNOWN)?;
    let mut v = nvmlPciInfo_t {
        busIdLegacy: [0; 16],
        domain,
        bus,
        device,
        pciDeviceId: 0x22a3_10de,
        pciSubSystemId: 0,
        busId: [0; 32],
    };
    fill_chars(
        &mut v.busIdLegacy,
        &format!("{domain:04X}:{bus:02X}:{device:02X}.0"),
    );
    fill_chars(&mut v.busId, bus_id);
    Ok(v)
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetNvLinkRemotePciInfo_v2(
    device: nvmlDevice_t,
    link: c_uint,
    pci: *mut nvmlPciInfo_t,
) -> nvmlReturn_t {
    peer_fn("nvmlDeviceGetNvLinkRemotePciInfo_v2", device, |c, st| {
        let o = nn(pci)?;
        o.set(match link_peer(topo(c.dev)?, link)?.ok_or(NOT_SUPPORTED)? {
            Remote::Gpu(p) => {
                crate::pci::pci_struct(st.sc.device.get(p as usize).ok_or(INVALID_ARGUMENT)?)?
            }
            Remote::Switch(bus_id) => switch_pci(bus_id)?,
        });
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetNvLinkCapability(
    device: nvmlDevice_t,
    link: c_uint,
    capability: nvmlNvLinkCapability_t,
    result: *mut c_uint,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetNvLinkCapability", device, |c| {
        let o = nn(result)?;
        let t = topo(c.dev)?;
        link_peer(t, link)?;
        let caps = t.nvlink_capabilities.ok_or(NOT_SUPPORTED)?;
        let bit = 1u32.checked_shl(capability).ok_or(INVALID_ARGUMENT)?;
        o.set(u32::from(caps & bit != 0));
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetNvLinkErrorCounter(
    device: nvmlDevice_t,
    link: c_uint,
    counter: nvmlNvLinkErrorCounter_t,
    value: *mut std::os::raw::c_ulonglong,
) -> nvmlReturn_t {
    dev_fn("nvmlDeviceGetNvLinkErrorCounter", device, |c| {
        let o = nn(value)?;
        let t = topo(c.dev)?;
        link_peer(t, link)?.ok_or(NOT_SUPPORTED)?;
        let counts = t.nvlink_errors.as_ref().ok_or(NOT_SUPPORTED)?;
        o.set(*counts.get(counter as usize).ok_or(INVALID_ARGUMENT)?);
        Ok(())
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetP2PStatus(
    device1: nvmlDevice_t,
    device2: nvmlDevice_t,
    index: nvmlGpuP2PCapsIndex_t,
    status: *mut nvmlGpuP2PStatus_t,
) -> nvmlReturn_t {
    pair_fn("nvmlDeviceGetP2PStatus", device1, device2, |c, _other| {
        let o = nn(status)?;
        let list = topo(c.dev)?.p2p_status.as_ref().ok_or(NOT_SUPPORTED)?;
        o.set(*list.get(index as usize).ok_or(NOT_SUPPORTED)?);
        Ok(())
    })
}

// ---- Nearest GPUs and the GPUs near a CPU (`topo -n`, `topo -c`), from the same description.

/// How far apart two levels are, as NVML orders them (0 internal .. 50 system).
fn level_rank(level: nvmlGpuTopologyLevel_t) -> R<u32> {
    let levels = [
        nvmlGpuLevel_enum_NVML_TOPOLOGY_INTERNAL,
        nvmlGpuLevel_enum_NVML_TOPOLOGY_SINGLE,
        nvmlGpuLevel_enum_NVML_TOPOLOGY_MULTIPLE,
        nvmlGpuLevel_enum_NVML_TOPOLOGY_HOSTBRIDGE,
        nvmlGpuLevel_enum_NVML_TOPOLOGY_NODE,
        nvmlGpuLevel_enum_NVML_TOPOLOGY_SYSTEM,
    ];
    if levels.contains(&level) {
        Ok(level)
    } else {
        Err(INVALID_ARGUMENT)
    }
}

/// NVML's count protocol for these two calls: a zero `count` (or no array)
/// asks for the number of GPUs and succeeds; a smaller one is INSUFFICIENT_SIZE.
fn put_devices(count: *mut c_uint, out: *mut nvmlDevice_t, gpus: &[usize]) -> R {
    let cnt = nn(count)?;
    let need = c_uint::try_from(gpus.len()).map_err(|_| UNKNOWN)?;
    let have = cnt.get();
    cnt.set(need);
    if have == 0 || out.is_null() {
        return Ok(());
    }
    if have < need {
        return Err(INSUFFICIENT_SIZE);
    }
    for (k, &g) in gpus.iter().enumerate() {
        // SAFETY: `out` is non-null and the caller said it holds `have` >= `need` handles.
        unsafe { out.add(k).write(device_handle(g)) };
    }
    Ok(())
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function, and a handle is one this library
/// handed out. Null pointers and unknown handles get INVALID_ARGUMENT.
///
/// The GPUs whose common ancestor with this one is at `level` or nearer
/// (the device itself left out), in index order.
#[no_mangle]
pub unsafe extern "C" fn nvmlDeviceGetTopologyNearestGpus(
    device: nvmlDevice_t,
    level: nvmlGpuTopologyLevel_t,
    count: *mut c_uint,
    device_array: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    peer_fn("nvmlDeviceGetTopologyNearestGpus", device, |c, st| {
        let limit = level_rank(level)?;
        let own = &topo(c.dev)?.pci_path;
        let me = c.target.gpu();
        let mut near = Vec::new();
        for (j, d) in st.sc.device.iter().enumerate() {
            let Some(t) = d.topology.as_ref().filter(|_| j != me) else {
                continue;
            };
            if common_level(own, &t.pci_path).is_ok_and(|l| l <= limit) {
                near.push(j);
            }
        }
        put_devices(count, device_array, &near)
    })
}

/// # Safety
/// An NVML client's contract: each pointer argument is null or valid for
/// what NVML documents for this function. Null pointers get INVALID_ARGUMENT.
///
/// The GPUs whose `cpu_affinity` holds `cpu_number`; NOT_SUPPORTED when no
/// GPU of the scenario declares one.
#[no_mangle]
pub unsafe extern "C" fn nvmlSystemGetTopologyGpuSet(
    cpu_number: c_uint,
    count: *mut c_uint,
    device_array: *mut nvmlDevice_t,
) -> nvmlReturn_t {
    sys_fn("nvmlSystemGetTopologyGpuSet", |st, _| {
        let mut declared = false;
        let mut near = Vec::new();
        for (j, d) in st.sc.device.iter().enumerate() {
            let Some(list) = d.topology.as_ref().and_then(|t| t.cpu_affinity.as_deref()) else {
                continue;
            };
            declared = true;
            if parse_id_list(list).ok_or(UNKNOWN)?.contains(&cpu_number) {
                near.push(j);
            }
        }
        if !declared {
            return Err(NOT_SUPPORTED);
        }
        put_devices(count, device_array, &near)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Vec<String> {
        s.split('/').map(String::from).collect()
    }

    #[test]
    fn levels_from_paths() {
        let gpu = p("numa0/hb0/sw0/sw0a");
        assert_eq!(
            common_level(&gpu, &p("numa1/hb2")),
            Ok(nvmlGpuLevel_enum_NVML_TOPOLOGY_SYSTEM)
        );
        assert_eq!(
            common_level(&gpu, &p("numa0/hb1")),
            Ok(nvmlGpuLevel_enum_NVML_TOPOLOGY_NODE)
        );
        assert_eq!(
            common_level(&gpu, &p("numa0/hb0")),
            Ok(nvmlGpuLevel_enum_NVML_TOPOLOGY_HOSTBRIDGE)
        );
        assert_eq!(
            common_level(&gpu, &p("numa0/hb0/sw0/sw0a")),
            Ok(nvmlGpuLevel_enum_NVML_TOPOLOGY_SINGLE)
        );
        assert_eq!(
            common_level(&gpu, &p("numa0/hb0/sw0/sw0b")),
            Ok(nvmlGpuLevel_enum_NVML_TOPOLOGY_MULTIPLE)
        );
        assert_eq!(common_level(&gpu, &p("numa0")), Err(NOT_SUPPORTED));
    }

    #[test]
    fn device_lists_follow_the_count_protocol() {
        let gpus = [1usize, 3];
        let mut n: c_uint = 0;
        assert_eq!(put_devices(&mut n, std::ptr::null_mut(), &gpus), Ok(()));
        assert_eq!(n, 2, "a zero count asks for the length");
        let mut one = [std::ptr::null_mut(); 1];
        let mut n: c_uint = 1;
        assert_eq!(
            put_devices(&mut n, one.as_mut_ptr(), &gpus),
            Err(INSUFFICIENT_SIZE)
        );
        assert_eq!(n, 2);
        let mut two = [std::ptr::null_mut(); 2];
        let mut n: c_uint = 2;
        assert_eq!(put_devices(&mut n, two.as_mut_ptr(), &gpus), Ok(()));
        assert_eq!(two, [device_handle(1), device_handle(3)]);
        assert_eq!(level_rank(7), Err(INVALID_ARGUMENT));
    }

    #[test]
    fn scenarios_check_their_topology() {
        let bad = |t: &str| {
            let text = format!("[[device]]\n[device.topology]\n{t}\n[[device]]\n");
            crate::scenario::Scenario::parse(&text, "t").is_err()
        };
        assert!(
            bad("nvlink = [{ peer = 0, links = 2 }]"),
            "a GPU linked to itself"
        );
        assert!(bad("nvlink = [{ peer = 9, links = 2 }]"), "no such GPU");
        assert!(
            bad("nvlink = [{ switch = \"nope\", links = 2 }]"),
            "not a bus id"
        );
        assert!(bad("cpu_affinity = \"0-x\""), "not a CPU list");
        assert!(
            bad("nvlink = [{ peer = 1, links = 2, inactive = true }]"),
            "an inactive bond names no far end"
        );
        assert!(bad("nvlink = [{ links = 2 }]"), "a bond without a far end");
        assert!(
            bad("nvlink = [{ peer = 1, links = 2, remote_links = [0] }]"),
            "one far-end link number per link"
        );
        assert!(!bad(
            "nvlink = [{ peer = 1, links = 2 }, { inactive = true, links = 2 }, { peer = 1, links = 1 }]"
        ));
        assert!(!bad(
            "nvlink = [{ peer = 1, links = 2 }]\ncpu_affinity = \"0-3,8\""
        ));
    }

    #[test]
    fn nvlink_fields_from_the_description() {
        use nvml_wrapper_sys::bindings::field_id::*;
        let text = "[[device]]\n[device.topology]\n\
            nvlink = [{ peer = 1, links = 2, remote_links = [7, 6] }, { inactive = true, links = 1 },\
            { peer = 1, links = 1 }]\n\
            nvlink_throughput = [10, 11, 12, 13]\nnvlink_lane_crc = [0, 5]\n[[device]]\n";
        let sc = crate::scenario::Scenario::parse(text, "t").unwrap();
        let d = &sc.device[0];
        let f = |field, link| nvlink_field(d, field, link);
        assert_eq!(f(NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID, 1), Some(6));
        assert_eq!(
            f(NVML_FI_DEV_NVLINK_REMOTE_NVLINK_ID, 3),
            None,
            "no remote_links"
        );
        assert_eq!(f(NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX, 0), Some(12));
        assert_eq!(
            f(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX, 2),
            None,
            "an inactive link"
        );
        assert_eq!(f(NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L1, 3), Some(5));
        assert_eq!(
            f(NVML_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_L2, 3),
            None,
            "two lanes"
        );
        assert_eq!(
            f(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 4),
            None,
            "past the last link"
        );
        assert_eq!(
            nvlink_field(&sc.device[1], NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX, 0),
            None
        );
    }
}
