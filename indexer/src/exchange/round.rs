//! `Round`: the barrier every machine's build passes through, in Redis.
//!
//! 1. **Join** (one Lua script on the `sift:index:round` hash): the last round is joined while
//!    it is open (not every partition announced yet, not done, not past its `expires`); else
//!    the next round is opened with this crawl's P and an `expires` a deadline away. Every
//!    partition the machine holds is announced in the round's `announced` hash; one another
//!    machine announced first is an error naming both, and nothing is announced. A crawl of
//!    another P is an error too.
//! 2. **Sent**: once its parcels of a step are in the streams, the machine adds its
//!    partitions to the step's `sent:K` set (step 0: contributions and their sources' first
//!    shares; then the PageRank share steps).
//! 3. **Wait** until every partition 0..P is in `sent:K` (so everything of the step is in its
//!    stream), looking every 50 ms until the deadline; then fail naming the partitions never
//!    announced and those announced but not sent (with their machine). A machine whose
//!    heartbeat ran out (`alive:MACHINE`, see `heartbeat.rs`; the join writes the first)
//!    while its partitions are not sent fails the wait at once, naming it.
//! 4. **Read, then finish** (one Lua script after the last step): the machine deletes its
//!    partitions' streams (each also deleted as soon as it is read) and adds them to `read`;
//!    the script that finds all P read deletes the round's keys and marks it `done`.
//!
//! A machine holding every partition fills a round by itself (and sends nothing).

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use shared::partition::{PartitionId, Partitions};

use super::connection::Redis;
use super::heartbeat::ALIVE;
use crate::Error;
use shared::partition::redis_keys::index as keys;

/// How often a waiting machine looks at the round.
const LOOK_EVERY: Duration = Duration::from_millis(50);
/// How often it looks whether the machines it waits for are alive.
const LIVES_EVERY: Duration = Duration::from_millis(500);

/// Joins the open round or opens the next; announces the machine's partitions.
/// KEYS: round hash. ARGV: machine, P, deadline (ms), heartbeat life (ms), partitions...
/// Writes the machine's first heartbeat. Answers `joined N`,
/// `partitions P` (the round's P differs) or `claimed PARTITION MACHINE N`.
const JOIN: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local life = tonumber(ARGV[3])
local n = tonumber(redis.call('HGET', KEYS[1], 'number') or '0')
local open = false
if n > 0 and redis.call('HGET', KEYS[1], 'done') ~= '1'
    and tonumber(redis.call('HGET', KEYS[1], 'expires') or '0') > now then
  local p = tonumber(redis.call('HGET', KEYS[1], 'partitions'))
  open = redis.call('HLEN', 'sift:index:' .. n .. ':announced') < p
end
if open then
  local p = redis.call('HGET', KEYS[1], 'partitions')
  if p ~= ARGV[2] then return {'partitions', p} end
else
  n = n + 1
  redis.call('HSET', KEYS[1], 'number', n, 'partitions', ARGV[2], 'expires', now + life, 'done', '0')
end
local announced = 'sift:index:' .. n .. ':announced'
for i = 5, #ARGV do
  local holder = redis.call('HGET', announced, ARGV[i])
  if holder and holder ~= ARGV[1] then return {'claimed', ARGV[i], holder, tostring(n)} end
end
for i = 5, #ARGV do redis.call('HSET', announced, ARGV[i], ARGV[1]) end
redis.call('PEXPIRE', announced, 2 * life)
redis.call('SET', 'sift:index:' .. n .. ':alive:' .. ARGV[1], 1, 'PX', ARGV[4])
return {'joined', tostring(n)}
";

/// Marks the machine's partitions read: deletes their streams and its first heartbeat; the
/// last one deletes the round's keys and marks it done. KEYS: round hash. ARGV: N, P,
/// deadline (ms), the last step, machine, partitions... Answers 1 when the round is done.
const FINISH: &str = r"
local prefix = 'sift:index:' .. ARGV[1] .. ':'
local steps = tonumber(ARGV[4])
redis.call('DEL', prefix .. 'alive:' .. ARGV[5])
for i = 6, #ARGV do
  redis.call('DEL', prefix .. 'links:' .. ARGV[i])
  for k = 0, steps do redis.call('DEL', prefix .. 'shares:' .. k .. ':' .. ARGV[i]) end
  redis.call('SADD', prefix .. 'read', ARGV[i])
end
redis.call('PEXPIRE', prefix .. 'read', 2 * tonumber(ARGV[3]))
if redis.call('SCARD', prefix .. 'read') >= tonumber(ARGV[2]) then
  redis.call('DEL', prefix .. 'announced', prefix .. 'read')
  for k = 0, steps do redis.call('DEL', prefix .. 'sent:' .. k) end
  if redis.call('HGET', KEYS[1], 'number') == ARGV[1] then
    redis.call('HSET', KEYS[1], 'done', '1')
  end
  return 1
end
return 0
";

/// One machine's place in an exchange round.
pub(crate) struct Round {
    /// The round's number.
    pub(crate) number: u64,
    /// This machine's name.
    machine: String,
    partitions: Partitions,
    /// The partitions this machine holds.
    local: Vec<PartitionId>,
    /// How long the round may take.
    life: Duration,
    /// When waiting gives up.
    deadline: Instant,
}

impl Round {
    /// Joins the open round (or opens one) as `machine`, announcing `local`; the whole
    /// exchange must be over within `life`.
    pub(crate) fn join(
        redis: &mut Redis,
        machine: &str,
        partitions: Partitions,
        local: &[PartitionId],
        life: Duration,
    ) -> Result<Self, Error> {
        let script = redis::Script::new(JOIN);
        let mut invocation = script.key(keys::ROUND);
        invocation
            .arg(machine)
            .arg(partitions.count())
            .arg(life.as_millis() as u64)
            .arg(ALIVE.as_millis() as u64);
        for p in local {
            invocation.arg(p.dir_name());
        }
        let answer: Vec<String> = redis.script(&invocation)?;
        let word = |i: usize| answer.get(i).cloned().unwrap_or_default();
        match word(0).as_str() {
            "joined" => Ok(Self {
                number: word(1).parse().unwrap_or_default(),
                machine: machine.to_string(),
                partitions,
                local: local.to_vec(),
                life,
                deadline: Instant::now() + life,
            }),
            "partitions" => Err(Error::Round(format!(
                "the open exchange round is for a crawl of {} partitions, this one has {}",
                word(1),
                partitions.count()
            ))),
            _ => Err(Error::Round(format!(
                "partition {} is claimed by machine {} in exchange round {}, and this one \
                 ({machine}) holds it too: a partition must be indexed on one machine",
                word(1),
                word(2),
                word(3)
            ))),
        }
    }

    /// The partitions this machine holds.
    pub(crate) fn local(&self) -> &[PartitionId] {
        &self.local
    }

    /// How long the round's keys may outlive it (streams expire with it).
    pub(crate) fn key_life(&self) -> Duration {
        2 * self.life
    }

    /// Marks this machine's partitions as sent in `step`: all it sends then is in the
    /// streams.
    pub(crate) fn sent(&self, redis: &mut Redis, step: u32) -> Result<(), Error> {
        let key = keys::sent(self.number, step);
        let mut pipe = redis::pipe();
        pipe.cmd("SADD").arg(&key);
        for p in &self.local {
            pipe.arg(p.dir_name());
        }
        pipe.ignore();
        pipe.cmd("PEXPIRE")
            .arg(&key)
            .arg(self.key_life().as_millis() as u64)
            .ignore();
        redis.pipe::<()>(&pipe, 2)
    }

    /// Waits until every partition of the crawl is sent in `step`; at the deadline, fails
    /// naming the partitions missing; as soon as a machine holding unsent partitions is
    /// found dead (its heartbeat ran out), fails naming it.
    pub(crate) fn wait_for_all(&self, redis: &mut Redis, step: u32) -> Result<(), Error> {
        let mut next_lives = Instant::now();
        loop {
            let sent: Vec<String> =
                redis.query(redis::cmd("SMEMBERS").arg(keys::sent(self.number, step)))?;
            if sent.len() >= self.partitions.count() as usize {
                return Ok(());
            }
            let now = Instant::now();
            if now >= self.deadline || now >= next_lives {
                next_lives = now + LIVES_EVERY;
                let announced: HashMap<String, String> =
                    redis.query(redis::cmd("HGETALL").arg(keys::announced(self.number)))?;
                if now >= self.deadline {
                    return Err(self.missing(&announced, &sent, step));
                }
                self.all_alive(redis, &announced, &sent, step)?;
            }
            std::thread::sleep(LOOK_EVERY);
        }
    }

    /// Fails naming a machine with partitions not sent in `step` whose heartbeat ran out.
    fn all_alive(
        &self,
        redis: &mut Redis,
        announced: &HashMap<String, String>,
        sent: &[String],
        step: u32,
    ) -> Result<(), Error> {
        let mut waited_for: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (partition, machine) in announced {
            if !sent.contains(partition) {
                waited_for.entry(machine).or_default().push(partition);
            }
        }
        if waited_for.is_empty() {
            return Ok(());
        }
        let mut pipe = redis::pipe();
        for machine in waited_for.keys() {
            pipe.cmd("EXISTS").arg(keys::alive(self.number, machine));
        }
        let alive: Vec<bool> = redis.pipe(&pipe, waited_for.len())?;
        let Some((machine, mut partitions)) = waited_for
            .into_iter()
            .zip(alive)
            .find(|(_, alive)| !alive)
            .map(|(dead, _)| dead)
        else {
            return Ok(());
        };
        partitions.sort_unstable();
        Err(Error::Round(format!(
            "exchange round {}{}: machine {machine} stopped (no heartbeat for {:?}) before \
             sending {}; start the builds again, its partitions on a machine that has them",
            self.number,
            step_label(step),
            ALIVE,
            partitions.join(", ")
        )))
    }

    /// The error naming the partitions not announced, and those announced but not sent.
    fn missing(&self, announced: &HashMap<String, String>, sent: &[String], step: u32) -> Error {
        let mut never = Vec::new();
        let mut unsent = Vec::new();
        for p in self.partitions.all() {
            let name = p.dir_name();
            match announced.get(&name) {
                None => never.push(name),
                Some(_) if sent.contains(&name) => {}
                Some(machine) => unsent.push(format!("{name} (on {machine})")),
            }
        }
        let mut why = format!(
            "exchange round {}{} not complete after {:?}:",
            self.number,
            step_label(step),
            self.life
        );
        if !never.is_empty() {
            why.push_str(&format!(" no machine announced {}", never.join(", ")));
        }
        if !unsent.is_empty() {
            if !never.is_empty() {
                why.push(';');
            }
            why.push_str(&format!(" not sent: {}", unsent.join(", ")));
        }
        Error::Round(why)
    }

    /// Deletes this machine's streams (read whole) and marks its partitions read; the last
    /// machine deletes the round. Whether the round is done.
    pub(crate) fn finish(&self, redis: &mut Redis, steps: u32) -> Result<bool, Error> {
        let script = redis::Script::new(FINISH);
        let mut invocation = script.key(keys::ROUND);
        invocation
            .arg(self.number)
            .arg(self.partitions.count())
            .arg(self.life.as_millis() as u64)
            .arg(steps)
            .arg(&self.machine);
        for p in &self.local {
            invocation.arg(p.dir_name());
        }
        let done: u64 = redis.script(&invocation)?;
        Ok(done == 1)
    }
}

/// ` (step K)` after a round's number, for the steps after the contributions'.
fn step_label(step: u32) -> String {
    if step > 0 {
        format!(" (step {step})")
    } else {
        String::new()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)] // tests fail loudly on purpose

    use super::*;
    use crate::exchange::heartbeat::Heartbeat;
    use crate::exchange::test_redis::TestRedis;

    const LIFE: Duration = Duration::from_millis(300);

    fn ids(ids: &[u32]) -> Vec<PartitionId> {
        ids.iter().copied().map(PartitionId::new).collect()
    }

    #[test]
    fn a_round_missing_partitions_fails_at_its_deadline_naming_them() {
        let server = TestRedis::start();
        let mut redis = Redis::open(&server.url()).unwrap();
        let four = Partitions::new(4).unwrap();
        let a = Round::join(&mut redis, "a", four, &ids(&[0]), LIFE).unwrap();
        let b = Round::join(&mut redis, "b", four, &ids(&[2]), LIFE).unwrap();
        assert_eq!(a.number, b.number, "one round");
        a.sent(&mut redis, 0).unwrap();
        let started = Instant::now();
        let error = a.wait_for_all(&mut redis, 0).err().unwrap().to_string();
        assert!(started.elapsed() < LIFE + Duration::from_secs(1), "{error}");
        assert_eq!(
            error,
            format!(
                "exchange round {} not complete after 300ms: no machine announced p-001, \
                 p-003; not sent: p-002 (on b)",
                a.number
            )
        );
        // Past its deadline the round is closed: the next join opens another.
        let c = Round::join(&mut redis, "c", four, &ids(&[0]), LIFE).unwrap();
        assert_eq!(c.number, a.number + 1);
    }

    #[test]
    fn a_machine_that_stops_beating_is_named_within_seconds_and_a_slow_one_is_not() {
        let server = TestRedis::start();
        let mut redis = Redis::open(&server.url()).unwrap();
        let two = Partitions::new(2).unwrap();
        let life = Duration::from_secs(120);
        let a = Round::join(&mut redis, "a", two, &ids(&[0]), life).unwrap();
        let b = Round::join(&mut redis, "b", two, &ids(&[1]), life).unwrap();
        let b_beats = Heartbeat::start(&server.url(), keys::alive(b.number, "b")).unwrap();
        // Step 0: b alive but slow, sending after longer than a heartbeat's life.
        a.sent(&mut redis, 0).unwrap();
        let url = server.url();
        let slow = std::thread::spawn(move || {
            std::thread::sleep(ALIVE + Duration::from_secs(1));
            b.sent(&mut Redis::open(&url).unwrap(), 0).unwrap();
            b
        });
        a.wait_for_all(&mut redis, 0).unwrap();
        let b = slow.join().unwrap();
        // Step 1: b is killed before sending (its heartbeat stops, its key runs out).
        b_beats.die();
        a.sent(&mut redis, 1).unwrap();
        let started = Instant::now();
        let error = a.wait_for_all(&mut redis, 1).err().unwrap().to_string();
        let took = started.elapsed();
        assert_eq!(
            error,
            format!(
                "exchange round {} (step 1): machine b stopped (no heartbeat for 3s) before \
                 sending p-001; start the builds again, its partitions on a machine that has them",
                a.number
            )
        );
        assert!(
            took < ALIVE + LIVES_EVERY + Duration::from_secs(1),
            "named in {took:?}, not at the deadline"
        );
        drop(b);
    }

    #[test]
    fn a_partition_claimed_twice_or_another_crawl_is_refused() {
        let server = TestRedis::start();
        let mut redis = Redis::open(&server.url()).unwrap();
        let three = Partitions::new(3).unwrap();
        let first = Round::join(&mut redis, "a", three, &ids(&[0, 1]), LIFE * 10).unwrap();
        let error = Round::join(&mut redis, "b", three, &ids(&[1, 2]), LIFE * 10)
            .err()
            .unwrap()
            .to_string();
        assert!(
            error.starts_with(&format!(
                "partition p-001 is claimed by machine a in exchange round {}",
                first.number
            )),
            "{error}"
        );
        let error = Round::join(
            &mut redis,
            "b",
            Partitions::new(4).unwrap(),
            &ids(&[2]),
            LIFE,
        )
        .err()
        .unwrap()
        .to_string();
        assert!(error.contains("crawl of 3 partitions"), "{error}");
        // Nothing was announced by the refused joins: b may still join with p-002.
        let b = Round::join(&mut redis, "b", three, &ids(&[2]), LIFE * 10).unwrap();
        assert_eq!(b.number, first.number);
        for step in [0, 1] {
            for round in [&first, &b] {
                round.sent(&mut redis, step).unwrap();
            }
            first.wait_for_all(&mut redis, step).unwrap();
        }
        assert!(!first.finish(&mut redis, 1).unwrap(), "b has not read yet");
        assert!(
            b.finish(&mut redis, 1).unwrap(),
            "the last reader ends the round"
        );
        let left: Vec<String> = redis.query(redis::cmd("KEYS").arg("sift:index:*")).unwrap();
        assert_eq!(left, [keys::ROUND]);
        // A finished round is never joined again.
        let next = Round::join(&mut redis, "a", three, &ids(&[0, 1]), LIFE).unwrap();
        assert_eq!(next.number, first.number + 1);
    }
}
