//! Politeness, all in one place: what the operator and robots.txt allow each origin and each
//! IP address (`settings.rs`), the frontier's count of requests per address as it hands them
//! out (`address_slots.rs`), the gaps kept again at the moment each request is sent
//! (`send_gate.rs`), and the turn at an address booked across crawlers that share it
//! (`shared_turns.rs`, which the distributed crawl's Redis gate implements).

mod address_slots;
mod send_gate;
mod settings;
mod shared_turns;

pub(crate) use address_slots::{AddressSlots, AddressTurn};
pub(crate) use send_gate::{SendGate, Spacing};
pub(crate) use settings::IpLimits;
pub use settings::Politeness;
pub(crate) use shared_turns::SharedTurns;
