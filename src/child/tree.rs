//! The job's process tree: every process below nvq, found afresh each
//! sample from `/proc/*/stat` (children, grandchildren, workers, and the
//! processes re-parented to nvq, its child subreaper, after their parent
//! exited).

use std::collections::{HashMap, HashSet};

/// The PIDs below `root` (not `root` itself), given each process's
/// (PID, parent PID).
pub fn descendants(root: u32, parents: &[(u32, u32)]) -> HashSet<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for &(pid, ppid) in parents {
        children.entry(ppid).or_default().push(pid);
    }
    let mut out = HashSet::new();
    let mut todo = vec![root];
    while let Some(p) = todo.pop() {
        for &c in children.get(&p).map(Vec::as_slice).unwrap_or_default() {
            if c != root && out.insert(c) {
                todo.push(c);
            }
        }
    }
    out
}

/// The parent PID in a `/proc/PID/stat` text (the field after the state,
/// after the command name's closing parenthesis).
pub fn parent_of(stat: &str) -> Option<u32> {
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

/// Every process below nvq now.
pub fn job_pids() -> HashSet<u32> {
    let me = std::process::id();
    let mut parents = Vec::new();
    for e in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Some(ppid) = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .as_deref()
            .and_then(parent_of)
        {
            parents.push((pid, ppid));
        }
    }
    descendants(me, &parents)
}

/// The rank a process of a distributed job carries in its environment
/// (`RANK`, else `LOCAL_RANK`, as torchrun, accelerate, deepspeed and
/// mpirun's launchers set them), from `/proc/PID/environ` (readable for
/// one's own processes). Bounded: a rank is a number below 2^20.
pub fn rank_of(environ: &[u8]) -> Option<u32> {
    let find = |key: &[u8]| {
        environ.split(|b| *b == 0).find_map(|kv| {
            let v = kv.strip_prefix(key)?;
            let v = std::str::from_utf8(v).ok()?;
            v.parse::<u32>().ok().filter(|r| *r < 1 << 20)
        })
    };
    find(b"RANK=").or_else(|| find(b"LOCAL_RANK="))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tree_below_a_root() {
        let p = [(2, 1), (3, 2), (4, 3), (5, 1), (6, 9)];
        let mut d: Vec<u32> = descendants(2, &p).into_iter().collect();
        d.sort_unstable();
        assert_eq!(d, [3, 4]);
        assert_eq!(parent_of("42 (a) b) c) S 7 42 42"), Some(7));
        assert_eq!(parent_of("garbage"), None);
        assert_eq!(rank_of(b"A=1\0LOCAL_RANK=3\0RANK=11\0"), Some(11));
        assert_eq!(rank_of(b"LOCAL_RANK=3\0XRANK=5\0"), Some(3));
        assert_eq!(rank_of(b"RANK=-1\0RANK=99999999999\0"), None);
    }
}
