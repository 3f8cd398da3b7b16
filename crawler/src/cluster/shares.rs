//! Each worker's share of the partitions, from the live workers, where they can open
//! stores ([`Reach`]) and where each partition's store lives (its home).
//!
//! Every worker computes the same shares from the same beat answer. Workers whose reaches
//! meet, directly or through others, form a *group* (processes on one data directory, or
//! machines backing up into one directory): a partition's store can move within a group
//! and never out of it. A partition is homed in the group of the first live worker (by
//! name) whose reach meets its home. The homeless (never taken yet, or their home met by no
//! live worker) go to the groups holding less than their members' even shares, up to them;
//! each group's partitions are then shared evenly among its members. Workers on disks of
//! their own without backups thus keep what they took: a worker that joins later takes only
//! what has no home.

use std::collections::HashMap;
use std::time::Duration;

use shared::partition::PartitionId;
use tokio::time::Instant;
use tracing::info;

use super::reach::Reach;

/// A live worker: its name and reach.
pub(crate) type Member = (String, Reach);

/// Whether, and how, a worker may take a free partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Taking {
    /// Its store is within this worker's reach, or it has none yet.
    Here,
    /// Its store lives where no live worker reaches (a lost disk, a machine gone past its
    /// leases): taken on a fresh store.
    Over,
    /// Its store is within another live worker's reach: left to that worker's group.
    Elsewhere,
}

/// The shares of one beat's answer.
pub(crate) struct Placement<'a> {
    /// The live workers, sorted by name.
    live: &'a [Member],
    /// Each live worker's group: the position of its group's first member in `live`.
    groups: Vec<usize>,
    /// Each partition's home, as Redis has it.
    homes: &'a HashMap<PartitionId, Reach>,
}

impl<'a> Placement<'a> {
    /// The placement among `live` (sorted by name) of partitions living at `homes`.
    pub(crate) fn new(live: &'a [Member], homes: &'a HashMap<PartitionId, Reach>) -> Self {
        let mut groups: Vec<usize> = (0..live.len()).collect();
        // Few workers: joined pairwise until nothing changes.
        let mut changed = true;
        while changed {
            changed = false;
            for i in 0..live.len() {
                for j in 0..live.len() {
                    if groups[j] < groups[i] && live[i].1.meets(&live[j].1) {
                        groups[i] = groups[j];
                        changed = true;
                    }
                }
            }
        }
        Self {
            live,
            groups,
            homes,
        }
    }

    /// The group a store at `home` belongs to: that of the first live worker reaching it.
    fn group_of(&self, home: &Reach) -> Option<usize> {
        let first = self.live.iter().position(|(_, reach)| reach.meets(home))?;
        Some(self.groups[first])
    }

    /// How many of `partitions` the live worker `worker` should hold (0 for one not live).
    pub(crate) fn target(
        &self,
        partitions: impl Iterator<Item = PartitionId>,
        worker: &str,
    ) -> u32 {
        let Some(me) = self.live.iter().position(|(name, _)| name == worker) else {
            return 0;
        };
        let partitions: Vec<PartitionId> = partitions.collect();
        let count = partitions.len() as u32;
        // Each group's homed partitions, by its first member.
        let mut homed = vec![0u32; self.live.len()];
        let mut homeless = 0u32;
        for p in partitions {
            match self.homes.get(&p).and_then(|home| self.group_of(home)) {
                Some(group) => homed[group] += 1,
                None => homeless += 1,
            }
        }
        // The homeless go to the groups below their even share, in order, up to it.
        let mut held = homed.clone();
        for group in 0..self.live.len() {
            if self.groups[group] != group {
                continue;
            }
            let even: u32 = (0..self.live.len())
                .filter(|&i| self.groups[i] == group)
                .map(|i| even_share(count, self.live.len(), i))
                .sum();
            let given = even.saturating_sub(homed[group]).min(homeless);
            held[group] += given;
            homeless -= given;
        }
        let mine = self.groups[me];
        let mates: Vec<usize> = (0..self.live.len())
            .filter(|&i| self.groups[i] == mine)
            .collect();
        let within = mates.iter().position(|&i| i == me).unwrap_or(0);
        even_share(held[mine], mates.len(), within)
    }

    /// An even share of `count` partitions among the live workers (the smaller one).
    pub(crate) fn even(&self, count: u32) -> u32 {
        count / self.live.len().max(1) as u32
    }

    /// Whether a worker of reach `me` may take partition `p` when it is free.
    pub(crate) fn taking(&self, me: &Reach, p: PartitionId) -> Taking {
        match self.homes.get(&p) {
            None => Taking::Here,
            Some(home) if me.meets(home) => Taking::Here,
            Some(home) if self.group_of(home).is_some() => Taking::Elsewhere,
            Some(_) => Taking::Over,
        }
    }
}

/// What a worker keeps from one placement to the next.
pub(crate) struct Placing {
    /// How long a partition's home must go unreached before it is taken over.
    after: Duration,
    /// Free partitions whose home no live worker reaches: since when.
    unreached: HashMap<PartitionId, Instant>,
    /// Whether holding less than an even share was said (once until it is even again).
    short: bool,
}

impl Placing {
    /// Takes over a partition whose home went unreached for `after`: a worker restarted
    /// or stopped for a moment keeps its partitions, and the workers still ending a finished
    /// crawl take none from those that ended first.
    pub(crate) fn new(after: Duration) -> Self {
        Self {
            after,
            unreached: HashMap::new(),
            short: false,
        }
    }

    /// Says, once, that this worker's `share` is below an `even` one.
    pub(crate) fn share(&mut self, share: u32, even: u32) {
        if share < even && !self.short {
            info!(
                share,
                even,
                "holding fewer partitions than an even share: the others' stores live on disks this worker cannot open (workers share partitions through one DIR, or one --backup directory)"
            );
        }
        self.short = share < even;
    }

    /// Keeps in `free` what may be taken now: all but the partitions to take over whose
    /// home has gone unreached for less than `after`.
    pub(crate) fn ripe(&mut self, free: &mut Vec<(PartitionId, Taking)>, now: Instant) {
        let over: HashMap<PartitionId, Instant> = free
            .iter()
            .filter(|(_, taking)| *taking == Taking::Over)
            .map(|(p, _)| (*p, self.unreached.get(p).copied().unwrap_or(now)))
            .collect();
        self.unreached = over;
        free.retain(|(p, taking)| *taking != Taking::Over || now >= self.unreached[p] + self.after);
    }
}

/// Shares of `count` over `workers`, differing by at most one, the larger to the first:
/// the one at `position`.
fn even_share(count: u32, workers: usize, position: usize) -> u32 {
    let workers = workers.max(1) as u32;
    count / workers + u32::from((position as u32) < count % workers)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared::partition::Partitions;

    fn reach(value: &str) -> Reach {
        Reach::from_value(value)
    }

    fn members(list: &[(&str, &str)]) -> Vec<Member> {
        list.iter()
            .map(|(w, r)| (w.to_string(), reach(r)))
            .collect()
    }

    fn targets(live: &[Member], homes: &HashMap<PartitionId, Reach>, count: u32) -> Vec<u32> {
        let partitions = Partitions::new(count).unwrap();
        let placement = Placement::new(live, homes);
        live.iter()
            .map(|(w, _)| placement.target(partitions.all(), w))
            .collect()
    }

    fn homed(count: u32, home: &str) -> HashMap<PartitionId, Reach> {
        Partitions::new(count)
            .unwrap()
            .all()
            .map(|p| (p, reach(home)))
            .collect()
    }

    #[test]
    fn without_homes_shares_add_up_and_differ_by_at_most_one() {
        for workers in 1..=9usize {
            let live: Vec<Member> = (0..workers)
                .map(|i| (format!("w{i}"), reach(&format!("disk{i}"))))
                .collect();
            for partitions in [1u32, 7, 64] {
                let shares = targets(&live, &HashMap::new(), partitions);
                assert_eq!(shares.iter().sum::<u32>(), partitions, "{workers}");
                let (min, max) = (shares.iter().min().unwrap(), shares.iter().max().unwrap());
                assert!(max - min <= 1, "{shares:?}");
            }
        }
    }

    #[test]
    fn a_partition_stays_in_the_group_that_reaches_its_store() {
        // Every store on disk a: a worker on disk b takes none, one on disk a half.
        let live = members(&[("w1", "a"), ("w2", "b")]);
        assert_eq!(targets(&live, &homed(8, "a"), 8), [8, 0]);
        let live = members(&[("w1", "a"), ("w2", "a"), ("w3", "b")]);
        assert_eq!(targets(&live, &homed(8, "a"), 8), [4, 4, 0]);
        // One backup directory joins the disks into one group.
        let live = members(&[("w1", "a x"), ("w2", "b x")]);
        assert_eq!(targets(&live, &homed(8, "a x"), 8), [4, 4]);
        // A home no live worker reaches is shared by all.
        let live = members(&[("w1", "b"), ("w2", "c")]);
        assert_eq!(targets(&live, &homed(8, "a"), 8), [4, 4]);
        // Mixed: the homeless fill the groups up to an even share, then the first.
        let live = members(&[("w1", "a"), ("w2", "b")]);
        assert_eq!(targets(&live, &homed(4, "a"), 8), [4, 4]);
        assert_eq!(targets(&live, &homed(5, "a"), 8), [5, 3]);
        let live = members(&[("w1", "b"), ("w2", "a"), ("w3", "a")]);
        assert_eq!(targets(&live, &homed(2, "a"), 8), [3, 3, 2]);
        assert_eq!(targets(&live, &homed(7, "a"), 8), [1, 4, 3]);
    }

    #[test]
    fn taking_follows_the_home() {
        let live = members(&[("w1", "a"), ("w2", "b x")]);
        let homes: HashMap<PartitionId, Reach> = [(0, "a"), (1, "c x"), (2, "d")]
            .into_iter()
            .map(|(p, home)| (PartitionId::new(p), reach(home)))
            .collect();
        let placement = Placement::new(&live, &homes);
        let (w1, w2) = (&live[0].1, &live[1].1);
        let p = PartitionId::new;
        assert_eq!(placement.taking(w1, p(0)), Taking::Here);
        assert_eq!(placement.taking(w2, p(0)), Taking::Elsewhere);
        assert_eq!(placement.taking(w2, p(1)), Taking::Here, "restored from x");
        assert_eq!(placement.taking(w1, p(1)), Taking::Elsewhere);
        assert_eq!(placement.taking(w1, p(2)), Taking::Over, "disk d is lost");
        assert_eq!(placement.taking(w1, p(3)), Taking::Here, "no home yet");
    }
}
