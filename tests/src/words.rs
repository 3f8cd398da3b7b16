//! Deterministic prose for the generated hosts: a small seeded PRNG, word lists and sentence
//! templates.
//!
//! Every slot word is a single token (letters only), so a paragraph built from a fixed list of
//! templates has the same number of tokens whatever words fill it. `ranked.test` relies on that
//! to give its pages equal text relevance.

/// SplitMix64: tiny, fast, and the same sequence on every platform.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    /// A generator for one seed.
    pub(crate) fn new(seed: u64) -> Self {
        Self(seed ^ 0x5DEE_CE66_D1CE_4E5B)
    }

    /// The next 64 random bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// One element of a non-empty list.
    pub(crate) fn pick<'a>(&mut self, list: &[&'a str]) -> &'a str {
        list[self.below(list.len())]
    }
}

pub(crate) const ADJECTIVES: &[&str] = &[
    "quiet",
    "restless",
    "weathered",
    "silver",
    "amber",
    "hidden",
    "distant",
    "tangled",
    "narrow",
    "sunlit",
    "frosted",
    "ancient",
    "hollow",
    "brackish",
    "windswept",
    "mossy",
    "copper",
    "crowded",
    "shallow",
    "sheltered",
    "speckled",
    "drifting",
    "patient",
    "seasonal",
    "northern",
    "southern",
    "muddy",
    "granite",
    "bright",
    "shadowed",
    "lonely",
    "migrant",
    "nocturnal",
    "tidal",
    "rusty",
    "feathered",
    "scattered",
    "sturdy",
    "fragile",
    "verdant",
];

pub(crate) const NOUNS: &[&str] = &[
    "heron",
    "otter",
    "willow",
    "lantern",
    "ferry",
    "orchard",
    "beetle",
    "lichen",
    "badger",
    "kestrel",
    "salmon",
    "meadowlark",
    "boatman",
    "cartographer",
    "shepherd",
    "miller",
    "beekeeper",
    "falcon",
    "alder",
    "hazel",
    "quarry",
    "lighthouse",
    "granary",
    "weaver",
    "curlew",
    "vole",
    "sparrow",
    "woodpecker",
    "trout",
    "juniper",
    "bramble",
    "tortoise",
    "marten",
    "swallow",
    "fisherman",
    "ranger",
    "mapmaker",
    "wren",
    "chestnut",
    "osprey",
];

pub(crate) const VERBS: &[&str] = &[
    "follows",
    "circles",
    "watches",
    "crosses",
    "gathers",
    "shelters",
    "guards",
    "visits",
    "avoids",
    "remembers",
    "outlasts",
    "greets",
    "trails",
    "mends",
    "counts",
    "startles",
    "feeds",
    "inspects",
    "measures",
    "abandons",
];

pub(crate) const PLACES: &[&str] = &[
    "ridge",
    "estuary",
    "meadow",
    "harbour",
    "causeway",
    "orchard",
    "millpond",
    "hedgerow",
    "boardwalk",
    "moorland",
    "sandbar",
    "reedbed",
    "valley",
    "headland",
    "spinney",
    "quayside",
    "towpath",
    "floodplain",
    "clifftop",
    "marsh",
];

pub(crate) const TIMES: &[&str] = &[
    "dawn",
    "dusk",
    "midnight",
    "noon",
    "midsummer",
    "midwinter",
    "harvest",
    "twilight",
    "daybreak",
    "nightfall",
];

/// Sentence templates; `{A}` adjective, `{N}` noun, `{V}` verb, `{P}` place, `{T}` time.
/// Each starts with a fixed word so no capitalisation is needed.
pub(crate) const TEMPLATES: &[&str] = &[
    "The {A} {N} {V} the {P} at {T}.",
    "Near the {P}, every {A} {N} {V} a {A} {N}.",
    "Observers noted that a {N} {V} the {A} {P} before {T}.",
    "By {T} the {P} was full of {A} {N} tracks.",
    "Few visitors realise how often the {N} {V} the {A} {P}.",
    "A {A} {N} rarely {V} a {N} without reason.",
    "Old records describe a {A} {P} where the {N} {V} the {N}.",
    "In the {A} season the {N} {V} the {P} each {T}.",
    "Nobody who {V} the {P} at {T} forgets the {A} {N}.",
    "Local stories say the {N} once {V} a {A} {N} across the {P}.",
    "From the {P} one can watch the {A} {N} as it {V} the {N}.",
    "Each {T} brings another {A} {N} to the {P}.",
];

/// Fills one template.
pub(crate) fn sentence(rng: &mut Rng, template: &str) -> String {
    let mut out = String::with_capacity(template.len() + 40);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let slot = &rest[start..start + 3];
        out.push_str(match slot {
            "{A}" => rng.pick(ADJECTIVES),
            "{N}" => rng.pick(NOUNS),
            "{V}" => rng.pick(VERBS),
            "{P}" => rng.pick(PLACES),
            _ => rng.pick(TIMES),
        });
        rest = &rest[start + 3..];
    }
    out.push_str(rest);
    out
}

/// A paragraph of `sentences` randomly chosen templates.
pub(crate) fn paragraph(rng: &mut Rng, sentences: usize) -> String {
    let mut out = Vec::with_capacity(sentences);
    for _ in 0..sentences {
        let template = TEMPLATES[rng.below(TEMPLATES.len())];
        out.push(sentence(rng, template));
    }
    out.join(" ")
}

/// A paragraph from fixed templates (indices into [`TEMPLATES`]), random words: the token
/// count depends only on `templates`.
pub(crate) fn fixed_paragraph(rng: &mut Rng, templates: &[usize]) -> String {
    templates
        .iter()
        .map(|&i| sentence(rng, TEMPLATES[i % TEMPLATES.len()]))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Splits text into index-like tokens: runs of alphanumeric characters.
#[cfg(test)]
pub(crate) fn tokens(text: &str) -> Vec<&str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|t| !t.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_one_token() {
        for list in [ADJECTIVES, NOUNS, VERBS, PLACES, TIMES] {
            for word in list {
                assert!(word.chars().all(|c| c.is_ascii_lowercase()), "{word}");
            }
        }
    }

    #[test]
    fn fixed_paragraphs_have_fixed_length_and_varied_words() {
        let templates = [0, 3, 7, 11];
        let a = fixed_paragraph(&mut Rng::new(1), &templates);
        let b = fixed_paragraph(&mut Rng::new(2), &templates);
        assert_ne!(a, b);
        assert_eq!(tokens(&a).len(), tokens(&b).len());
        assert_eq!(
            a,
            fixed_paragraph(&mut Rng::new(1), &templates),
            "deterministic"
        );
        assert!(!paragraph(&mut Rng::new(3), 4).contains('{'));
    }
}
