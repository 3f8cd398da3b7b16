//! `Spill`: records kept within a memory budget, read back sorted: the [`Contribution`]s
//! that arrived from other machines (by source URL) and every link's anchor text
//! ([`AnchorUse`](super::anchors::AnchorUse), by document).
//!
//! Records ([`Spilled`]) are buffered until their estimated size reaches the budget, then
//! sorted (stably: equal ones keep the order they came in) and written as a run, a file of
//! length-prefixed records (`[u32 LE length] [version] ++ postcard`), in the spill's
//! directory. Reading merges the runs (a heap of each run's next record; equal ones in run
//! order, so in the order they came); a spill that never reached its budget is sorted in
//! memory and touches no disk. Past [`MAX_RUNS`] runs, they are merged into one first, so a
//! spill never holds more than that many files open.
//!
//! Chosen over a temporary RocksDB: the budget is exact (no memtables, block cache or
//! compaction threads beside the build's), the format is the records' own, and a run is
//! written once and read once, which is all a sort needs.
//!
//! The directory is a [`SpillDir`]: removed when dropped (the build ended, or failed), and a
//! killed build's leftover is removed by the next build on the same data directory.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{BufReader, BufWriter, ErrorKind, Read, Write};
use std::path::{Path, PathBuf};

use shared::record::Record;

use super::Contribution;
use crate::Error;

/// Runs merged into one when a spill holds more (bounds the files open while reading).
pub(crate) const MAX_RUNS: usize = 64;
/// What a contribution costs in memory beyond its strings' bytes (its own fields), and each
/// of its links beyond theirs (two `String`s).
const CONTRIBUTION_OVERHEAD: usize = 64;
const LINK_OVERHEAD: usize = 48;

/// What a [`Spill`] holds: a record with the order it is read back in and an estimate of the
/// memory it takes.
pub(crate) trait Spilled: Record {
    /// The order read back in (equal records keep the order they were pushed in).
    fn order(&self, other: &Self) -> Ordering;
    /// The memory it takes, estimated.
    fn size(&self) -> usize;
}

impl Record for Contribution {
    const KIND: &'static str = "spilled contribution";
    const VERSION: u8 = 1;
}

/// Contributions are read back by source URL.
impl Spilled for Contribution {
    fn order(&self, other: &Self) -> Ordering {
        self.source.cmp(&other.source)
    }

    fn size(&self) -> usize {
        size_of(self)
    }
}

/// A directory of spilled runs, removed (with what it holds) when dropped.
#[derive(Debug)]
pub(crate) struct SpillDir {
    path: PathBuf,
}

impl SpillDir {
    /// Creates `path` empty, removing what a killed build left there.
    pub(crate) fn create(path: PathBuf) -> Result<Self, Error> {
        remove_leftover(&path)?;
        std::fs::create_dir_all(&path).map_err(|e| Error::io(&path, e))?;
        Ok(Self { path })
    }

    /// The directory.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.path);
    }
}

/// Removes a spill directory a killed build left at `path` (nothing when there is none).
pub(crate) fn remove_leftover(path: &Path) -> Result<(), Error> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != ErrorKind::NotFound => Err(Error::io(path, e)),
        _ => Ok(()),
    }
}

/// The memory a contribution takes, estimated: its strings' bytes and fixed overheads.
pub(crate) fn size_of(contribution: &Contribution) -> usize {
    let links = contribution.links.iter();
    CONTRIBUTION_OVERHEAD
        + contribution.source.len()
        + links
            .map(|(target, anchor)| LINK_OVERHEAD + target.len() + anchor.len())
            .sum::<usize>()
}

/// Records buffered within `budget` bytes, the rest in sorted runs in `dir`.
#[derive(Debug)]
pub(crate) struct Spill<T> {
    dir: PathBuf,
    budget: usize,
    buffer: Vec<T>,
    buffered: usize,
    /// The most `buffered` has been.
    most_buffered: usize,
    runs: Vec<PathBuf>,
    /// Runs written so far (names the next one).
    written: usize,
}

impl<T: Spilled> Spill<T> {
    /// An empty spill writing its runs in `dir` (which must exist) once `budget` bytes are
    /// buffered.
    pub(crate) fn new(dir: &Path, budget: usize) -> Self {
        Self {
            dir: dir.to_path_buf(),
            budget,
            buffer: Vec::new(),
            buffered: 0,
            most_buffered: 0,
            runs: Vec::new(),
            written: 0,
        }
    }

    /// Adds a record; writes a run when the buffer reaches the budget.
    pub(crate) fn push(&mut self, record: T) -> Result<(), Error> {
        self.buffered += record.size();
        self.most_buffered = self.most_buffered.max(self.buffered);
        self.buffer.push(record);
        if self.buffered >= self.budget {
            self.write_run()?;
        }
        Ok(())
    }

    /// Runs written so far (merged ones counted once each).
    pub(crate) fn runs_written(&self) -> usize {
        self.written
    }

    /// The most bytes (estimated) buffered at once.
    pub(crate) fn most_buffered(&self) -> usize {
        self.most_buffered
    }

    /// Every record, sorted (equal ones in the order they came).
    pub(crate) fn into_sorted(mut self) -> Result<Sorted<T>, Error> {
        if self.runs.is_empty() {
            let mut buffer = std::mem::take(&mut self.buffer);
            buffer.sort_by(T::order);
            return Ok(Sorted::Memory(buffer.into_iter()));
        }
        if !self.buffer.is_empty() {
            self.write_run()?;
        }
        Ok(Sorted::Runs(Merge::open(&self.runs)?))
    }

    /// Sorts the buffer and writes it as the next run; past [`MAX_RUNS`], merges the runs.
    fn write_run(&mut self) -> Result<(), Error> {
        let mut buffer = std::mem::take(&mut self.buffer);
        self.buffered = 0;
        buffer.sort_by(T::order);
        let path = self.next_path();
        write_run(&path, buffer.into_iter().map(Ok))?;
        self.runs.push(path);
        if self.runs.len() > MAX_RUNS {
            let path = self.next_path();
            write_run(&path, Merge::<T>::open(&self.runs)?)?;
            for run in std::mem::replace(&mut self.runs, vec![path]) {
                std::fs::remove_file(&run).map_err(|e| Error::io(&run, e))?;
            }
        }
        Ok(())
    }

    fn next_path(&mut self) -> PathBuf {
        self.written += 1;
        self.dir.join(format!("run-{:06}", self.written))
    }
}

/// Writes `records` (in order) as a run at `path`.
fn write_run<T: Spilled>(
    path: &Path,
    records: impl Iterator<Item = Result<T, Error>>,
) -> Result<(), Error> {
    let io = |e| Error::io(path, e);
    let mut out = BufWriter::new(File::create(path).map_err(io)?);
    for record in records {
        let bytes = record?.encode();
        let len = u32::try_from(bytes.len()).map_err(|_| {
            Error::io(
                path,
                std::io::Error::new(ErrorKind::InvalidData, format!("a {} over 4 GiB", T::KIND)),
            )
        })?;
        out.write_all(&len.to_le_bytes()).map_err(io)?;
        out.write_all(&bytes).map_err(io)?;
    }
    out.flush().map_err(io)
}

/// A spill's records, sorted.
pub(crate) enum Sorted<T> {
    /// All of them fitted in the budget: sorted in memory.
    Memory(std::vec::IntoIter<T>),
    /// Merged from runs on disk.
    Runs(Merge<T>),
}

impl<T: Spilled> Iterator for Sorted<T> {
    type Item = Result<T, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Sorted::Memory(records) => records.next().map(Ok),
            Sorted::Runs(merge) => merge.next(),
        }
    }
}

/// One run being read.
struct Run {
    path: PathBuf,
    reader: BufReader<File>,
}

impl Run {
    /// The run's next record, `None` at its end.
    fn next<T: Spilled>(&mut self) -> Result<Option<T>, Error> {
        let io = |e| Error::io(&self.path, e);
        let mut len = [0u8; 4];
        match self.reader.read_exact(&mut len) {
            Err(e) if e.kind() == ErrorKind::UnexpectedEof => return Ok(None),
            other => other.map_err(io)?,
        }
        let mut bytes = vec![0u8; u32::from_le_bytes(len) as usize];
        self.reader.read_exact(&mut bytes).map_err(io)?;
        Ok(Some(T::decode(&bytes)?))
    }
}

/// Runs merged: a heap of each run's next record, ties to the earlier run.
pub(crate) struct Merge<T> {
    runs: Vec<Run>,
    heads: BinaryHeap<Reverse<Head<T>>>,
    /// An error met reading ahead, passed on next.
    failed: Option<Error>,
}

/// A run's next record, ordered by (record, run).
struct Head<T> {
    record: T,
    run: usize,
}

impl<T: Spilled> PartialEq for Head<T> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl<T: Spilled> Eq for Head<T> {}

impl<T: Spilled> PartialOrd for Head<T> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<T: Spilled> Ord for Head<T> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.record
            .order(&other.record)
            .then(self.run.cmp(&other.run))
    }
}

impl<T: Spilled> Merge<T> {
    /// Opens `runs`, each sorted.
    fn open(paths: &[PathBuf]) -> Result<Self, Error> {
        let mut merge = Self {
            runs: Vec::with_capacity(paths.len()),
            heads: BinaryHeap::with_capacity(paths.len()),
            failed: None,
        };
        for path in paths {
            let file = File::open(path).map_err(|e| Error::io(path, e))?;
            merge.runs.push(Run {
                path: path.clone(),
                reader: BufReader::new(file),
            });
            merge.advance(merge.runs.len() - 1)?;
        }
        Ok(merge)
    }

    /// Reads run `run`'s next record into the heap.
    fn advance(&mut self, run: usize) -> Result<(), Error> {
        if let Some(record) = self.runs[run].next()? {
            self.heads.push(Reverse(Head { record, run }));
        }
        Ok(())
    }
}

impl<T: Spilled> Iterator for Merge<T> {
    type Item = Result<T, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(error) = self.failed.take() {
            return Some(Err(error));
        }
        let Reverse(head) = self.heads.pop()?;
        if let Err(error) = self.advance(head.run) {
            self.heads.clear();
            self.failed = Some(error);
        }
        Some(Ok(head.record))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use super::*;

    fn contribution(source: &str, n: u64) -> Contribution {
        Contribution {
            source: source.into(),
            identity: n,
            share: 0.0,
            links: vec![(format!("http://t.test/{n}"), format!("anchor {n}"))],
        }
    }

    #[test]
    fn runs_merge_in_source_order_keeping_arrival_order_and_the_directory_goes() {
        let parent = tempfile::tempdir().unwrap();
        let path = parent.path().join("spill");
        std::fs::create_dir_all(path.join("leftover")).unwrap();
        let dir = SpillDir::create(path.clone()).unwrap();
        assert!(!path.join("leftover").exists(), "a killed build's leftover");
        // About two contributions a run, over MAX_RUNS runs: merged once on the way.
        let mut spill = Spill::new(dir.path(), 2 * size_of(&contribution("http://a/", 0)));
        let mut pushed = Vec::new();
        for n in 0..(3 * MAX_RUNS as u64) {
            let source = format!("http://s{}.test/", (n * 7919) % 50);
            pushed.push(contribution(&source, n));
            spill.push(contribution(&source, n)).unwrap();
        }
        assert!(spill.runs_written() > MAX_RUNS, "{}", spill.runs_written());
        let files = std::fs::read_dir(dir.path()).unwrap().count();
        assert!(files <= MAX_RUNS, "{files} run files");
        let read: Vec<Contribution> = spill.into_sorted().unwrap().map(Result::unwrap).collect();
        pushed.sort_by(|a, b| a.source.cmp(&b.source));
        assert_eq!(
            read, pushed,
            "sorted stably: a source's in the order pushed"
        );

        let mut small = Spill::new(dir.path(), usize::MAX);
        small.push(contribution("http://b/", 1)).unwrap();
        small.push(contribution("http://a/", 2)).unwrap();
        let read: Vec<u64> = small
            .into_sorted()
            .unwrap()
            .map(|c| c.unwrap().identity)
            .collect();
        assert_eq!(read, [2, 1]);
        drop(dir);
        assert!(!path.exists(), "removed when dropped");
    }
}
