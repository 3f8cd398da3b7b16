//! The robots.txt decision table: one row per case, (name, robots.txt body, agent, URL,
//! expected verdict, where the expectation comes from).
//!
//! Expectations are copied from Google's `robots_test.cc` (github.com/google/robotstxt),
//! read from its `robots.cc` where its tests say nothing, or taken from RFC 9309; never from
//! our own output. Rows whose upstream test checks a count of parsed lines (line ends, byte
//! order marks) are written as decisions that only come out right when those lines parse.
//! `Origin::Differs` marks the rows where we deliberately decide otherwise than Google's
//! test, and says why.
//!
//! Every row runs the crawler's own path: the body is read as a fetched robots.txt is
//! (`policy_of_body`), the URL through `CanonicalUrl::parse`, and the decision is
//! `policy.allows(url.path_and_query())`.

/// A decision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// The URL may be fetched.
    Allowed,
    /// It may not.
    Disallowed,
}

use Verdict::{Allowed as A, Disallowed as D};

/// Where a row's expectation comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum Origin {
    /// A test of Google's `robots_test.cc`, by name.
    Test(&'static str),
    /// Google's `robots.cc`, where no test checks it.
    Code(&'static str),
    /// RFC 9309, by section, where Google's tests say nothing.
    Rfc(&'static str),
    /// Our own choice where neither says anything.
    Ours(&'static str),
    /// Google's test (named) expects the opposite; we follow RFC 9309, for the reason given.
    Differs(&'static str, &'static str),
}

use Origin::{Code, Differs, Ours, Rfc, Test};

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Test(test) => write!(f, "robots_test.cc {test}"),
            Code(what) => write!(f, "robots.cc {what}"),
            Rfc(section) => write!(f, "RFC 9309 {section}"),
            Ours(why) => write!(f, "ours: {why}"),
            Differs(test, why) => write!(f, "differs from robots_test.cc {test}: {why}"),
        }
    }
}

/// One decision to check.
pub(super) struct Case {
    /// The behaviour the row covers.
    pub name: &'static str,
    /// The robots.txt body, as served.
    pub robots: Vec<u8>,
    /// Our product token.
    pub agent: &'static str,
    /// The URL asked about.
    pub url: String,
    /// The decision expected.
    pub expect: Verdict,
    /// Where the expectation comes from.
    pub origin: Origin,
}

/// The tests of `robots_test.cc` that the decision table covers. (The rest:
/// `ID_VerifyValidUserAgentsToObey` is [`AGENT_TOKENS`], `ID_NonStandardLineExample_Sitemap`
/// is in [`directives`], and `GoogleOnly_LineTooLong`, whose URLs are longer than a
/// `CanonicalUrl` may be, has a test of its own next to the table plus `Code` rows here.)
pub(super) const GOOGLE_TESTS: &[&str] = &[
    "GoogleOnly_SystemTest",
    "ID_LineSyntax_Line",
    "ID_LineSyntax_Groups",
    "ID_LineSyntax_Groups_OtherRules",
    "ID_REPLineNamesCaseInsensitive",
    "ID_UserAgentValueCaseInsensitive",
    "GoogleOnly_AcceptUserAgentUpToFirstSpace",
    "ID_GlobalGroups_Secondary",
    "ID_AllowDisallow_Value_CaseSensitive",
    "ID_LongestMatch",
    "ID_Encoding",
    "ID_SpecialCharacters",
    "GoogleOnly_IndexHTMLisDirectory",
    "GoogleOnly_DocumentationChecks",
    "ID_LinesNumbersAreCountedCorrectly",
    "ID_UTF8ByteOrderMarkIsSkipped",
    "TestGetPathParamsQuery",
    "TestMaybeEscapePattern",
];

const FOO_DISALLOW_ALL: &str = "user-agent: FooBot\ndisallow: /\n";
const GROUPS: &str = "allow: /foo/bar/\n\nuser-agent: FooBot\ndisallow: /\nallow: /x/\nuser-agent: BarBot\ndisallow: /\nallow: /y/\n\n\nallow: /w/\nuser-agent: BazBot\n\nuser-agent: FooBot\nallow: /z/\ndisallow: /\n";
const OTHER_SITEMAP: &str =
    "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n";
const OTHER_UNKNOWN: &str =
    "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n";
const NAMES_UPPER: &str = "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n";
const NAMES_LOWER: &str = "user-agent: FooBot\nallow: /x/\ndisallow: /\n";
const NAMES_CAMEL: &str = "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n";
const UA_UPPER: &str = "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n";
const UA_LOWER: &str = "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n";
const UA_CAMEL: &str = "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n";
const UP_TO_SPACE: &str =
    "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n";
const GLOBAL: &str = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n";
const ONLY_SPECIFIC: &str = "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n";
const LM_DISALLOW_LONGER: &str = "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/\n";
const LM_ALLOW_LONGER: &str = "user-agent: FooBot\nallow: /x/page.html\ndisallow: /x/\n";
const LM_EMPTY: &str = "user-agent: FooBot\ndisallow: \nallow: \n";
const LM_ROOT: &str = "user-agent: FooBot\ndisallow: /\nallow: /\n";
const LM_SLASH: &str = "user-agent: FooBot\ndisallow: /x\nallow: /x/\n";
const LM_SAME: &str = "user-agent: FooBot\ndisallow: /x/page.html\nallow: /x/page.html\n";
const LM_STAR_HTML: &str = "user-agent: FooBot\nallow: /page\ndisallow: /*.html\n";
const LM_PAGE_DOT: &str = "user-agent: FooBot\nallow: /x/page.\ndisallow: /*.html\n";
const LM_SPECIFIC: &str = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n";
const ENC_QUERY: &str =
    "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n";
const ENC_RAW: &str = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n";
const ENC_ESCAPED: &str = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n";
const ENC_UNRESERVED: &str = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n";
const SC_STAR: &str = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n";
const SC_DOLLAR: &str = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n";
const SC_HASH: &str = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n";
const INDEX_HTML: &str = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n";
const DOC_FISH: &str = "user-agent: FooBot\ndisallow: /\nallow: /fish\n";
const DOC_FISH_STAR: &str = "user-agent: FooBot\ndisallow: /\nallow: /fish*\n";
const DOC_FISH_SLASH: &str = "user-agent: FooBot\ndisallow: /\nallow: /fish/\n";
const DOC_PHP: &str = "user-agent: FooBot\ndisallow: /\nallow: /*.php\n";
const DOC_PHP_END: &str = "user-agent: FooBot\ndisallow: /\nallow: /*.php$\n";
const DOC_FISH_PHP: &str = "user-agent: FooBot\ndisallow: /\nallow: /fish*.php\n";
const DOC_ROOT_ONLY: &str = "user-agent: FooBot\nallow: /$\ndisallow: /\n";
const ENDS_LF: &str = "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n";
const ENDS_CRLF: &str =
    "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n";
const ENDS_CR: &str = "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r";
const ENDS_NO_FINAL: &str = "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /";
const ENDS_MIXED: &str = "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /";
const ALL_OUT: &str = "User-agent: *\nDisallow: /\n";

const T_SYSTEM: Origin = Test("GoogleOnly_SystemTest");
const T_LINE: Origin = Test("ID_LineSyntax_Line");
const T_GROUPS: Origin = Test("ID_LineSyntax_Groups");
const T_OTHER: Origin = Test("ID_LineSyntax_Groups_OtherRules");
const T_NAMES: Origin = Test("ID_REPLineNamesCaseInsensitive");
const T_UA_CASE: Origin = Test("ID_UserAgentValueCaseInsensitive");
const T_UP_TO_SPACE: Origin = Test("GoogleOnly_AcceptUserAgentUpToFirstSpace");
const T_GLOBAL: Origin = Test("ID_GlobalGroups_Secondary");
const T_CASE: Origin = Test("ID_AllowDisallow_Value_CaseSensitive");
const T_LONGEST: Origin = Test("ID_LongestMatch");
const T_ENCODING: Origin = Test("ID_Encoding");
const T_SPECIAL: Origin = Test("ID_SpecialCharacters");
const T_INDEX: Origin = Test("GoogleOnly_IndexHTMLisDirectory");
const T_DOC: Origin = Test("GoogleOnly_DocumentationChecks");
const T_ENDS: Origin = Test("ID_LinesNumbersAreCountedCorrectly");
const T_PATH: Origin = Test("TestGetPathParamsQuery");
const T_ESCAPE: Origin = Test("TestMaybeEscapePattern");
const RAW_URL: &str = "the crawler asks with canonical URLs, which percent-encode non-ASCII (RFC 9309 2.2.2: both sides percent-encoded before comparison); Google expects the caller to encode";
const UNRESERVED: &str = "RFC 9309 2.2.2 (and its table): %62%61%7A is unencoded to baz before comparison, on both sides";
const MISSPELT: &str = "KeyIsDisallow: frequent typos";
const TOKEN: &str = "ExtractUserAgent: the leading run of [a-zA-Z_-]";
const STAR: &str = "HandleUserAgent: * alone, or * and whitespace";

type Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Verdict,
    Origin,
);

/// The rows whose bodies are text: (name, robots.txt, agent, URL, verdict, origin).
#[rustfmt::skip]
const ROWS: &[Row] = &[
    // GoogleOnly_SystemTest. Google's empty URL is the path "/", as "http://foo.bar" is.
    ("empty robots.txt allows everything", "", "FooBot", "http://foo.bar/", A, T_SYSTEM),
    ("an empty agent is named by no group", FOO_DISALLOW_ALL, "", "http://foo.bar/", A, T_SYSTEM),
    ("an empty URL is the path /", FOO_DISALLOW_ALL, "FooBot", "http://foo.bar", D, T_SYSTEM),
    ("empty robots.txt, empty agent", "", "", "http://foo.bar/", A, T_SYSTEM),

    // ID_LineSyntax_Line, and how Google forgives a missing colon.
    ("name: value lines", "user-agent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", D, T_LINE),
    ("unknown names are not rules", "foo: FooBot\nbar: /\n", "FooBot", "http://foo.bar/x/y", A, T_LINE),
    ("a missing colon is forgiven", "user-agent FooBot\ndisallow /\n", "FooBot", "http://foo.bar/x/y", D, T_LINE),
    ("a tab stands in for a missing colon", "user-agent\tFooBot\ndisallow\t/\n", "FooBot", "http://foo.bar/x/y", D, Code("GetKeyAndValueFrom: space or tab as separator")),
    ("no colon: only two words are a line", "user-agent: FooBot\ndisallow / x\n", "FooBot", "http://foo.bar/x/y", A, Code("GetKeyAndValueFrom: more than two words")),
    ("no colon: 'user agent FooBot' is three words", "user agent FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", A, Code("GetKeyAndValueFrom: more than two words")),
    ("whitespace around name, colon and value", "  user-agent  :  FooBot  \n\tdisallow\t:\t/x/\t\n", "FooBot", "http://foo.bar/x/y", D, Code("StripWhitespaceSlowly")),
    ("a value may hold colons", "user-agent: FooBot\ndisallow: /x:y\n", "FooBot", "http://foo.bar/x:y/z", D, Code("GetKeyAndValueFrom: the first colon separates")),

    // ID_LineSyntax_Groups.
    ("groups: own group allows /x/", GROUPS, "FooBot", "http://foo.bar/x/b", A, T_GROUPS),
    ("groups: merged group allows /z/", GROUPS, "FooBot", "http://foo.bar/z/d", A, T_GROUPS),
    ("groups: another group's allow does not apply", GROUPS, "FooBot", "http://foo.bar/y/c", D, T_GROUPS),
    ("groups: BarBot's own allow", GROUPS, "BarBot", "http://foo.bar/y/c", A, T_GROUPS),
    ("groups: a rule after blank lines stays in the group", GROUPS, "BarBot", "http://foo.bar/w/a", A, T_GROUPS),
    ("groups: BarBot gets no /z/", GROUPS, "BarBot", "http://foo.bar/z/d", D, T_GROUPS),
    ("groups: user-agent lines with a blank line between share a group", GROUPS, "BazBot", "http://foo.bar/z/d", A, T_GROUPS),
    ("groups: rules before any user-agent are ignored (FooBot)", GROUPS, "FooBot", "http://foo.bar/foo/bar/", D, T_GROUPS),
    ("groups: rules before any user-agent are ignored (BarBot)", GROUPS, "BarBot", "http://foo.bar/foo/bar/", D, T_GROUPS),
    ("groups: rules before any user-agent are ignored (BazBot)", GROUPS, "BazBot", "http://foo.bar/foo/bar/", D, T_GROUPS),
    ("a rule ends the run of user-agent lines", "User-agent: FooBot\nDisallow: /a\nUser-agent: BarBot\nDisallow: /b\n", "FooBot", "http://foo.bar/b", A, Rfc("2.1")),
    ("rules before the first user-agent line are ignored", "Disallow: /\nUser-agent: FooBot\nAllow: /a\n", "FooBot", "http://foo.bar/x/y", A, Rfc("2.2.2")),

    // ID_LineSyntax_Groups_OtherRules: other lines end no group.
    ("a Sitemap line does not end a group (other agent)", OTHER_SITEMAP, "FooBot", "http://foo.bar/", D, T_OTHER),
    ("a Sitemap line does not end a group (named agent)", OTHER_SITEMAP, "BarBot", "http://foo.bar/", D, T_OTHER),
    ("an unknown line does not end a group (named agent)", OTHER_UNKNOWN, "FooBot", "http://foo.bar/", D, T_OTHER),
    ("an unknown line does not end a group (other agent)", OTHER_UNKNOWN, "BarBot", "http://foo.bar/", D, T_OTHER),
    ("a Crawl-delay line does not end a group", "User-agent: FooBot\nCrawl-delay: 5\nUser-agent: *\nDisallow: /\n", "FooBot", "http://foo.bar/", D, Code("crawl-delay is an unknown line")),
    ("a comment line does not end a group", "User-agent: FooBot\n# hello\nUser-agent: *\nDisallow: /\n", "FooBot", "http://foo.bar/", D, Rfc("2.2 (ABNF: comments and empty lines)")),

    // ID_REPLineNamesCaseInsensitive.
    ("line names upper case (allowed)", NAMES_UPPER, "FooBot", "http://foo.bar/x/y", A, T_NAMES),
    ("line names lower case (allowed)", NAMES_LOWER, "FooBot", "http://foo.bar/x/y", A, T_NAMES),
    ("line names camel case (allowed)", NAMES_CAMEL, "FooBot", "http://foo.bar/x/y", A, T_NAMES),
    ("line names upper case (disallowed)", NAMES_UPPER, "FooBot", "http://foo.bar/a/b", D, T_NAMES),
    ("line names lower case (disallowed)", NAMES_LOWER, "FooBot", "http://foo.bar/a/b", D, T_NAMES),
    ("line names camel case (disallowed)", NAMES_CAMEL, "FooBot", "http://foo.bar/a/b", D, T_NAMES),

    // Misspellings: exactly those Google accepts, and names read by how they start.
    ("misspelling: useragent", "useragent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code("KeyIsUserAgent: frequent typos")),
    ("misspelling: user agent", "user agent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code("KeyIsUserAgent: frequent typos")),
    ("misspelling: dissallow", "user-agent: FooBot\ndissallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code(MISSPELT)),
    ("misspelling: dissalow", "user-agent: FooBot\ndissalow: /\n", "FooBot", "http://foo.bar/x/y", D, Code(MISSPELT)),
    ("misspelling: disalow", "user-agent: FooBot\ndisalow: /\n", "FooBot", "http://foo.bar/x/y", D, Code(MISSPELT)),
    ("misspelling: diasllow", "user-agent: FooBot\ndiasllow: /\n", "FooBot", "http://foo.bar/x/y", D, Code(MISSPELT)),
    ("misspelling: disallaw", "user-agent: FooBot\ndisallaw: /\n", "FooBot", "http://foo.bar/x/y", D, Code(MISSPELT)),
    ("names are recognized by how they start", "User-agents: FooBot\nDisallows: /\n", "FooBot", "http://foo.bar/x/y", D, Code("GetKeyType: StartsWithIgnoreCase")),
    ("other misspellings are unknown lines: disallw", "user-agent: FooBot\ndisallw: /\n", "FooBot", "http://foo.bar/x/y", A, Code(MISSPELT)),
    ("other misspellings are unknown lines: user_agent", "user_agent: FooBot\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", A, Code("KeyIsUserAgent: frequent typos")),
    ("allow has no accepted misspelling", "user-agent: FooBot\nalow: /x/\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code("KeyIsAllow: no typos")),

    // ID_UserAgentValueCaseInsensitive.
    ("user-agent value upper case, token Foo (allowed)", UA_UPPER, "Foo", "http://foo.bar/x/y", A, T_UA_CASE),
    ("user-agent value lower case, token Foo (allowed)", UA_LOWER, "Foo", "http://foo.bar/x/y", A, T_UA_CASE),
    ("user-agent value camel case, token Foo (allowed)", UA_CAMEL, "Foo", "http://foo.bar/x/y", A, T_UA_CASE),
    ("user-agent value upper case, token Foo (disallowed)", UA_UPPER, "Foo", "http://foo.bar/a/b", D, T_UA_CASE),
    ("user-agent value lower case, token Foo (disallowed)", UA_LOWER, "Foo", "http://foo.bar/a/b", D, T_UA_CASE),
    ("user-agent value camel case, token Foo (disallowed)", UA_CAMEL, "Foo", "http://foo.bar/a/b", D, T_UA_CASE),
    ("user-agent value upper case, token foo (allowed)", UA_UPPER, "foo", "http://foo.bar/x/y", A, T_UA_CASE),
    ("user-agent value lower case, token foo (allowed)", UA_LOWER, "foo", "http://foo.bar/x/y", A, T_UA_CASE),
    ("user-agent value camel case, token foo (allowed)", UA_CAMEL, "foo", "http://foo.bar/x/y", A, T_UA_CASE),
    ("user-agent value upper case, token foo (disallowed)", UA_UPPER, "foo", "http://foo.bar/a/b", D, T_UA_CASE),
    ("user-agent value lower case, token foo (disallowed)", UA_LOWER, "foo", "http://foo.bar/a/b", D, T_UA_CASE),
    ("user-agent value camel case, token foo (disallowed)", UA_CAMEL, "foo", "http://foo.bar/a/b", D, T_UA_CASE),

    // GoogleOnly_AcceptUserAgentUpToFirstSpace, and where else the token ends.
    ("user-agent value read up to the first space", UP_TO_SPACE, "Foo", "http://foo.bar/x/y", A, T_UP_TO_SPACE),
    ("a token with a space names no group", UP_TO_SPACE, "Foo Bar", "http://foo.bar/x/y", D, T_UP_TO_SPACE),
    ("user-agent value read up to a /", "User-agent: FooBot/2.1\nDisallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code(TOKEN)),
    ("user-agent value read up to a digit", "User-agent: FooBot2\nDisallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code(TOKEN)),
    ("_ and - are token characters", "User-agent: Foo_Bot-x\nDisallow: /\n", "foo_bot-X", "http://foo.bar/x/y", D, Code(TOKEN)),
    ("a longer token does not name us", "User-agent: FooBotExtra\nDisallow: /\n", "FooBot", "http://foo.bar/x/y", A, Code(TOKEN)),
    ("a prefix of our token does not name us", "User-agent: Foo\nDisallow: /\n", "FooBot", "http://foo.bar/x/y", A, Code(TOKEN)),
    ("an invalid token of ours is named by no group", "User-agent: FooBot/2.1\nDisallow: /\n", "FooBot/2.1", "http://foo.bar/x/y", A, Code(TOKEN)),

    // The global group: `*` alone or followed by whitespace, nothing else.
    ("*foo is not the global group", "User-agent: *foo\nDisallow: /\n", "FooBot", "http://foo.bar/x/y", A, Code(STAR)),
    ("*/1.0 is not the global group", "User-agent: */1.0\nDisallow: /\n", "FooBot", "http://foo.bar/x/y", A, Code(STAR)),
    ("* and a space is the global group", "User-agent: * foo\nDisallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code(STAR)),
    ("* and a tab is the global group", "User-agent: *\tfoo\nDisallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code(STAR)),
    ("no spaces around the colons", "User-agent:*\nDisallow:/\n", "FooBot", "http://foo.bar/x/y", D, Code(STAR)),

    // ID_GlobalGroups_Secondary, and merging.
    ("no groups: everything allowed", "", "FooBot", "http://foo.bar/x/y", A, T_GLOBAL),
    ("a group naming us wins over *", GLOBAL, "FooBot", "http://foo.bar/x/y", D, T_GLOBAL),
    ("the * group for other agents", GLOBAL, "BarBot", "http://foo.bar/x/y", A, T_GLOBAL),
    ("no group for us and no *: no rules", ONLY_SPECIFIC, "QuxBot", "http://foo.bar/x/y", A, T_GLOBAL),
    ("groups naming us are merged (RFC example)", "user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n", "ExampleBot", "http://foo.bar/baz", D, Rfc("2.2.1")),
    ("the * group when none names us (RFC example)", "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n", "ExampleBot", "http://foo.bar/foo", D, Rfc("2.2.1")),
    ("another agent's group does not apply (RFC example)", "user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n", "ExampleBot", "http://foo.bar/baz", A, Rfc("2.2.1")),
    ("* groups are merged", "User-agent: *\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n", "FooBot", "http://foo.bar/b", D, Code("HandleDisallow: global priority across groups")),
    ("a group naming us with no rules overrides *", "User-agent: *\nDisallow: /\n\nUser-agent: FooBot\n", "FooBot", "http://foo.bar/x/y", A, Rfc("2.1: the last group may have no rules")),
    ("a group naming both us and *: ours", "User-agent: *\nUser-agent: FooBot\nDisallow: /x/\n", "FooBot", "http://foo.bar/x/y", D, Code("HandleUserAgent")),
    ("a group naming both us and *: others", "User-agent: *\nUser-agent: FooBot\nDisallow: /x/\n", "BarBot", "http://foo.bar/x/y", D, Code("HandleUserAgent")),

    // ID_AllowDisallow_Value_CaseSensitive.
    ("paths are case-sensitive (same case)", "user-agent: FooBot\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/y", D, T_CASE),
    ("paths are case-sensitive (other case)", "user-agent: FooBot\ndisallow: /X/\n", "FooBot", "http://foo.bar/x/y", A, T_CASE),

    // ID_LongestMatch.
    ("longest match: a longer disallow", LM_DISALLOW_LONGER, "FooBot", "http://foo.bar/x/page.html", D, T_LONGEST),
    ("longest match: a longer allow", LM_ALLOW_LONGER, "FooBot", "http://foo.bar/x/page.html", A, T_LONGEST),
    ("longest match: only the shorter matches", LM_ALLOW_LONGER, "FooBot", "http://foo.bar/x/", D, T_LONGEST),
    ("longest match: empty allow and disallow", LM_EMPTY, "FooBot", "http://foo.bar/x/page.html", A, T_LONGEST),
    ("longest match: tie on / goes to allow", LM_ROOT, "FooBot", "http://foo.bar/x/page.html", A, T_LONGEST),
    ("longest match: /x is not /x/", LM_SLASH, "FooBot", "http://foo.bar/x", D, T_LONGEST),
    ("longest match: /x/ is longer than /x", LM_SLASH, "FooBot", "http://foo.bar/x/", A, T_LONGEST),
    ("longest match: tie on the same path goes to allow", LM_SAME, "FooBot", "http://foo.bar/x/page.html", A, T_LONGEST),
    ("longest match: /*.html is longer than /page", LM_STAR_HTML, "FooBot", "http://foo.bar/page.html", D, T_LONGEST),
    ("longest match: /page alone", LM_STAR_HTML, "FooBot", "http://foo.bar/page", A, T_LONGEST),
    ("longest match: /x/page. is longer than /*.html", LM_PAGE_DOT, "FooBot", "http://foo.bar/x/page.html", A, T_LONGEST),
    ("longest match: /*.html alone", LM_PAGE_DOT, "FooBot", "http://foo.bar/x/y.html", D, T_LONGEST),
    ("a group naming us with no matching rule allows", LM_SPECIFIC, "FooBot", "http://foo.bar/x/page", A, T_LONGEST),
    ("a group naming us: its own rule", LM_SPECIFIC, "FooBot", "http://foo.bar/y/page", D, T_LONGEST),
    ("an empty allow does not beat a disallow", "user-agent: FooBot\nallow:\ndisallow: /\n", "FooBot", "http://foo.bar/x/y", D, Code("priority 0 never decides")),
    ("an empty disallow allows everything", "user-agent: FooBot\ndisallow:\n", "FooBot", "http://foo.bar/x/y", A, Code("priority 0 never decides")),
    ("* counts in a pattern's length", "user-agent: FooBot\nallow: /a*\ndisallow: /ab\n", "FooBot", "http://foo.bar/abc", A, Code("LongestMatchRobotsMatchStrategy: pattern length")),
    ("$ counts in a pattern's length", "user-agent: FooBot\ndisallow: /ab$\nallow: /ab\n", "FooBot", "http://foo.bar/ab", D, Code("LongestMatchRobotsMatchStrategy: pattern length")),

    // ID_Encoding.
    ("reserved characters in the query stay as they are", ENC_QUERY, "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par", A, T_ENCODING),
    ("a non-ASCII pattern matches the encoded URL", ENC_RAW, "FooBot", "http://foo.bar/foo/bar/%E3%83%84", A, T_ENCODING),
    ("a non-ASCII pattern matches the raw URL", ENC_RAW, "FooBot", "http://foo.bar/foo/bar/ツ", A, Differs("ID_Encoding", RAW_URL)),
    ("an encoded pattern matches the encoded URL", ENC_ESCAPED, "FooBot", "http://foo.bar/foo/bar/%E3%83%84", A, T_ENCODING),
    ("an encoded pattern matches the raw URL", ENC_ESCAPED, "FooBot", "http://foo.bar/foo/bar/ツ", A, Differs("ID_Encoding", RAW_URL)),
    ("escaped unreserved characters match their plain form", ENC_UNRESERVED, "FooBot", "http://foo.bar/foo/bar/baz", A, Differs("ID_Encoding", UNRESERVED)),
    ("escaped unreserved characters match themselves", ENC_UNRESERVED, "FooBot", "http://foo.bar/foo/bar/%62%61%7A", A, T_ENCODING),
    ("an escaped ~ matches ~", "User-agent: *\nDisallow: /%7Euser\n", "FooBot", "http://foo.bar/~user/a", D, Rfc("2.2.2")),
    ("an escaped / is not a /", "User-agent: *\nDisallow: /a%2Fb\n", "FooBot", "http://foo.bar/a/b", A, Rfc("2.2.2")),
    ("escapes of reserved characters compare hex case-insensitively", "User-agent: *\nDisallow: /a%2Fb\n", "FooBot", "http://foo.bar/a%2fb", D, Rfc("2.2.2")),
    ("non-ASCII in the query", "User-agent: *\nDisallow: /?q=é\n", "FooBot", "http://foo.bar/?q=é", D, Rfc("2.2.2")),
    ("%2A in a pattern is a verbatim * (RFC example)", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "FooBot", "https://www.example.com/path/file-with-a-*.html", D, Rfc("2.2.3")),
    ("%24 in a pattern is a verbatim $ (RFC example)", "User-agent: *\nDisallow: /path/foo-%24\n", "FooBot", "https://www.example.com/path/foo-$", D, Rfc("2.2.3")),

    // ID_SpecialCharacters.
    ("* matches a path segment", SC_STAR, "FooBot", "http://foo.bar/foo/bar/quz", D, T_SPECIAL),
    ("* rule not matching: no segment", SC_STAR, "FooBot", "http://foo.bar/foo/quz", A, T_SPECIAL),
    ("* rule not matching: an empty segment", SC_STAR, "FooBot", "http://foo.bar/foo//quz", A, T_SPECIAL),
    ("* rule not matching: another segment", SC_STAR, "FooBot", "http://foo.bar/foo/bax/quz", A, T_SPECIAL),
    ("$ anchors the end", SC_DOLLAR, "FooBot", "http://foo.bar/foo/bar", D, T_SPECIAL),
    ("$ anchors: longer paths do not match (1)", SC_DOLLAR, "FooBot", "http://foo.bar/foo/bar/qux", A, T_SPECIAL),
    ("$ anchors: longer paths do not match (2)", SC_DOLLAR, "FooBot", "http://foo.bar/foo/bar/", A, T_SPECIAL),
    ("$ anchors: longer paths do not match (3)", SC_DOLLAR, "FooBot", "http://foo.bar/foo/bar/baz", A, T_SPECIAL),
    ("# comments out a whole line", SC_HASH, "FooBot", "http://foo.bar/foo/bar", A, T_SPECIAL),
    ("# ends a value", SC_HASH, "FooBot", "http://foo.bar/foo/quz", D, T_SPECIAL),
    ("$ before the end is an ordinary character", "User-agent: *\nDisallow: /a$b\n", "FooBot", "http://foo.bar/a$b", D, Code("Matches: $ is special only at the end")),
    ("$ before the end is not an anchor", "User-agent: *\nDisallow: /a$b\n", "FooBot", "http://foo.bar/a", A, Code("Matches: $ is special only at the end")),
    ("a query string is part of what is matched", "User-agent: *\nDisallow: /*?\n", "FooBot", "http://foo.bar/page?x=1", D, Rfc("2.2.2")),
    ("no query, no match on ?", "User-agent: *\nDisallow: /*?\n", "FooBot", "http://foo.bar/page", A, Rfc("2.2.2")),

    // GoogleOnly_IndexHTMLisDirectory.
    ("Allow .../index.html allows the directory", INDEX_HTML, "foobot", "http://foo.com/allowed-slash/", A, T_INDEX),
    ("index.htm is not index.html", INDEX_HTML, "foobot", "http://foo.com/allowed-slash/index.htm", D, T_INDEX),
    ("index.html itself", INDEX_HTML, "foobot", "http://foo.com/allowed-slash/index.html", A, T_INDEX),
    ("index.html: other URLs", INDEX_HTML, "foobot", "http://foo.com/anyother-url", D, T_INDEX),
    ("index.html: the directory alone, not below it", INDEX_HTML, "foobot", "http://foo.com/allowed-slash/other", D, Code("HandleAllow: pattern/$")),
    ("Allow .../index.htm allows the directory too", "User-Agent: *\nAllow: /d/index.htm\nDisallow: /\n", "foobot", "http://foo.com/d/", A, Code("HandleAllow: /index.htm prefix")),

    // GoogleOnly_DocumentationChecks: "URL matching based on path values".
    ("doc /fish: /bar", DOC_FISH, "FooBot", "http://foo.bar/bar", D, T_DOC),
    ("doc /fish: /fish", DOC_FISH, "FooBot", "http://foo.bar/fish", A, T_DOC),
    ("doc /fish: /fish.html", DOC_FISH, "FooBot", "http://foo.bar/fish.html", A, T_DOC),
    ("doc /fish: /fish/salmon.html", DOC_FISH, "FooBot", "http://foo.bar/fish/salmon.html", A, T_DOC),
    ("doc /fish: /fishheads", DOC_FISH, "FooBot", "http://foo.bar/fishheads", A, T_DOC),
    ("doc /fish: /fishheads/yummy.html", DOC_FISH, "FooBot", "http://foo.bar/fishheads/yummy.html", A, T_DOC),
    ("doc /fish: /fish.html?id=anything", DOC_FISH, "FooBot", "http://foo.bar/fish.html?id=anything", A, T_DOC),
    ("doc /fish: /Fish.asp", DOC_FISH, "FooBot", "http://foo.bar/Fish.asp", D, T_DOC),
    ("doc /fish: /catfish", DOC_FISH, "FooBot", "http://foo.bar/catfish", D, T_DOC),
    ("doc /fish: /?id=fish", DOC_FISH, "FooBot", "http://foo.bar/?id=fish", D, T_DOC),
    ("doc /fish*: /bar", DOC_FISH_STAR, "FooBot", "http://foo.bar/bar", D, T_DOC),
    ("doc /fish*: /fish", DOC_FISH_STAR, "FooBot", "http://foo.bar/fish", A, T_DOC),
    ("doc /fish*: /fish.html", DOC_FISH_STAR, "FooBot", "http://foo.bar/fish.html", A, T_DOC),
    ("doc /fish*: /fish/salmon.html", DOC_FISH_STAR, "FooBot", "http://foo.bar/fish/salmon.html", A, T_DOC),
    ("doc /fish*: /fishheads", DOC_FISH_STAR, "FooBot", "http://foo.bar/fishheads", A, T_DOC),
    ("doc /fish*: /fishheads/yummy.html", DOC_FISH_STAR, "FooBot", "http://foo.bar/fishheads/yummy.html", A, T_DOC),
    ("doc /fish*: /fish.html?id=anything", DOC_FISH_STAR, "FooBot", "http://foo.bar/fish.html?id=anything", A, T_DOC),
    ("doc /fish*: /Fish.bar", DOC_FISH_STAR, "FooBot", "http://foo.bar/Fish.bar", D, T_DOC),
    ("doc /fish*: /catfish", DOC_FISH_STAR, "FooBot", "http://foo.bar/catfish", D, T_DOC),
    ("doc /fish*: /?id=fish", DOC_FISH_STAR, "FooBot", "http://foo.bar/?id=fish", D, T_DOC),
    ("doc /fish/: /bar", DOC_FISH_SLASH, "FooBot", "http://foo.bar/bar", D, T_DOC),
    ("doc /fish/: /fish/", DOC_FISH_SLASH, "FooBot", "http://foo.bar/fish/", A, T_DOC),
    ("doc /fish/: /fish/salmon", DOC_FISH_SLASH, "FooBot", "http://foo.bar/fish/salmon", A, T_DOC),
    ("doc /fish/: /fish/?salmon", DOC_FISH_SLASH, "FooBot", "http://foo.bar/fish/?salmon", A, T_DOC),
    ("doc /fish/: /fish/salmon.html", DOC_FISH_SLASH, "FooBot", "http://foo.bar/fish/salmon.html", A, T_DOC),
    ("doc /fish/: /fish/?id=anything", DOC_FISH_SLASH, "FooBot", "http://foo.bar/fish/?id=anything", A, T_DOC),
    ("doc /fish/: /fish", DOC_FISH_SLASH, "FooBot", "http://foo.bar/fish", D, T_DOC),
    ("doc /fish/: /fish.html", DOC_FISH_SLASH, "FooBot", "http://foo.bar/fish.html", D, T_DOC),
    ("doc /fish/: /Fish/Salmon.html", DOC_FISH_SLASH, "FooBot", "http://foo.bar/Fish/Salmon.html", D, T_DOC),
    ("doc /*.php: /bar", DOC_PHP, "FooBot", "http://foo.bar/bar", D, T_DOC),
    ("doc /*.php: /filename.php", DOC_PHP, "FooBot", "http://foo.bar/filename.php", A, T_DOC),
    ("doc /*.php: /folder/filename.php", DOC_PHP, "FooBot", "http://foo.bar/folder/filename.php", A, T_DOC),
    ("doc /*.php: /folder/filename.php?parameters", DOC_PHP, "FooBot", "http://foo.bar/folder/filename.php?parameters", A, T_DOC),
    ("doc /*.php: //folder/any.php.file.html", DOC_PHP, "FooBot", "http://foo.bar//folder/any.php.file.html", A, T_DOC),
    ("doc /*.php: /filename.php/", DOC_PHP, "FooBot", "http://foo.bar/filename.php/", A, T_DOC),
    ("doc /*.php: /index?f=filename.php/", DOC_PHP, "FooBot", "http://foo.bar/index?f=filename.php/", A, T_DOC),
    ("doc /*.php: /php/", DOC_PHP, "FooBot", "http://foo.bar/php/", D, T_DOC),
    ("doc /*.php: /index?php", DOC_PHP, "FooBot", "http://foo.bar/index?php", D, T_DOC),
    ("doc /*.php: /windows.PHP", DOC_PHP, "FooBot", "http://foo.bar/windows.PHP", D, T_DOC),
    ("doc /*.php$: /bar", DOC_PHP_END, "FooBot", "http://foo.bar/bar", D, T_DOC),
    ("doc /*.php$: /filename.php", DOC_PHP_END, "FooBot", "http://foo.bar/filename.php", A, T_DOC),
    ("doc /*.php$: /folder/filename.php", DOC_PHP_END, "FooBot", "http://foo.bar/folder/filename.php", A, T_DOC),
    ("doc /*.php$: /filename.php?parameters", DOC_PHP_END, "FooBot", "http://foo.bar/filename.php?parameters", D, T_DOC),
    ("doc /*.php$: /filename.php/", DOC_PHP_END, "FooBot", "http://foo.bar/filename.php/", D, T_DOC),
    ("doc /*.php$: /filename.php5", DOC_PHP_END, "FooBot", "http://foo.bar/filename.php5", D, T_DOC),
    ("doc /*.php$: /php/", DOC_PHP_END, "FooBot", "http://foo.bar/php/", D, T_DOC),
    ("doc /*.php$: /filename?php", DOC_PHP_END, "FooBot", "http://foo.bar/filename?php", D, T_DOC),
    ("doc /*.php$: /aaaphpaaa", DOC_PHP_END, "FooBot", "http://foo.bar/aaaphpaaa", D, T_DOC),
    ("doc /*.php$: //windows.PHP", DOC_PHP_END, "FooBot", "http://foo.bar//windows.PHP", D, T_DOC),
    ("doc /fish*.php: /bar", DOC_FISH_PHP, "FooBot", "http://foo.bar/bar", D, T_DOC),
    ("doc /fish*.php: /fish.php", DOC_FISH_PHP, "FooBot", "http://foo.bar/fish.php", A, T_DOC),
    ("doc /fish*.php: /fishheads/catfish.php?parameters", DOC_FISH_PHP, "FooBot", "http://foo.bar/fishheads/catfish.php?parameters", A, T_DOC),
    ("doc /fish*.php: /Fish.PHP", DOC_FISH_PHP, "FooBot", "http://foo.bar/Fish.PHP", D, T_DOC),
    // GoogleOnly_DocumentationChecks: "Order of precedence for group-member records".
    ("doc precedence: allow /p over disallow /", "user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://example.com/page", A, T_DOC),
    ("doc precedence: equal patterns, allow", "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://example.com/folder/page", A, T_DOC),
    ("doc precedence: /*.htm over /page", "user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://example.com/page.htm", D, T_DOC),
    ("doc precedence: allow /$ allows the root", DOC_ROOT_ONLY, "FooBot", "http://example.com/", A, T_DOC),
    ("doc precedence: allow /$ allows only the root", DOC_ROOT_ONLY, "FooBot", "http://example.com/page.html", D, T_DOC),

    // ID_LinesNumbersAreCountedCorrectly, as decisions: bar's Disallow applies only if every
    // line end is seen; foo's group ends at bar's user-agent line.
    ("line ends LF", ENDS_LF, "bar", "http://foo.bar/x", D, T_ENDS),
    ("line ends LF: groups", ENDS_LF, "foo", "http://foo.bar/x", A, T_ENDS),
    ("line ends CRLF", ENDS_CRLF, "bar", "http://foo.bar/x", D, T_ENDS),
    ("line ends CRLF: groups", ENDS_CRLF, "foo", "http://foo.bar/x", A, T_ENDS),
    ("line ends CR", ENDS_CR, "bar", "http://foo.bar/x", D, T_ENDS),
    ("line ends CR: groups", ENDS_CR, "foo", "http://foo.bar/x", A, T_ENDS),
    ("no final line end", ENDS_NO_FINAL, "bar", "http://foo.bar/x", D, T_ENDS),
    ("no final line end: groups", ENDS_NO_FINAL, "foo", "http://foo.bar/x", A, T_ENDS),
    ("mixed line ends", ENDS_MIXED, "bar", "http://foo.bar/x", D, T_ENDS),
    ("mixed line ends: groups", ENDS_MIXED, "foo", "http://foo.bar/some/path", A, T_ENDS),

    // TestGetPathParamsQuery: what of a URL is matched (through CanonicalUrl).
    ("a URL without a path is /", "User-agent: *\nDisallow: /$\n", "FooBot", "http://www.example.com", D, T_PATH),
    ("path and query", "User-agent: *\nDisallow: /a/b?c=http://d.e/$\n", "FooBot", "http://www.example.com/a/b?c=http://d.e/", D, T_PATH),
    ("the fragment is not matched", "User-agent: *\nDisallow: /a/b?c=d&e=f$\n", "FooBot", "http://www.example.com/a/b?c=d&e=f#fragment", D, T_PATH),
    ("a query without a path", "User-agent: *\nDisallow: /?a$\n", "FooBot", "http://example.com?a", D, T_PATH),
    ("params are part of the path", "User-agent: *\nDisallow: /a;b$\n", "FooBot", "http://example.com/a;b#c", D, T_PATH),

    // TestMaybeEscapePattern: patterns are percent-encoded, escapes uppercased.
    ("non-ASCII in a pattern is percent-encoded", "User-agent: *\nDisallow: /á\n", "FooBot", "http://foo.bar/%C3%A1", D, T_ESCAPE),
    ("escapes in a pattern are uppercased", "User-agent: *\nDisallow: /%aa\n", "FooBot", "http://foo.bar/%AA", D, T_ESCAPE),
    ("escapes in a URL are uppercased", "User-agent: *\nDisallow: /%AA\n", "FooBot", "http://foo.bar/%aa", D, T_ESCAPE),

    // RFC 9309 2.2.2.
    ("/robots.txt is always allowed", ALL_OUT, "FooBot", "http://foo.bar/robots.txt", A, Rfc("2.2.2")),
    ("only /robots.txt itself", ALL_OUT, "FooBot", "http://foo.bar/robots.txt.bak", D, Rfc("2.2.2")),
];

/// Every row: [`ROWS`], then those whose bodies are not plain text or are generated.
pub(super) fn decisions() -> Vec<Case> {
    let mut cases: Vec<Case> = ROWS
        .iter()
        .map(|&(name, robots, agent, url, expect, origin)| Case {
            name,
            robots: robots.as_bytes().to_vec(),
            agent,
            url: url.to_string(),
            expect,
            origin,
        })
        .collect();
    let mut add = |name, robots: Vec<u8>, agent, url: &str, expect, origin| {
        cases.push(Case {
            name,
            robots,
            agent,
            url: url.to_string(),
            expect,
            origin,
        });
    };

    // ID_UTF8ByteOrderMarkIsSkipped, with `Disallow` for its `Allow` so that a parsed
    // user-agent line shows in the decision.
    let bom = Test("ID_UTF8ByteOrderMarkIsSkipped");
    let rules = b"User-Agent: foo\nDisallow: /AnyValue\n";
    let url = "http://foo.bar/AnyValue";
    for (name, mark, expect) in [
        ("a byte order mark is skipped", &b"\xef\xbb\xbf"[..], D),
        (
            "two octets of a byte order mark are skipped",
            b"\xef\xbb",
            D,
        ),
        ("one octet of a byte order mark is skipped", b"\xef", D),
        (
            "a broken byte order mark spoils the first line",
            b"\xef\x11\xbf",
            A,
        ),
    ] {
        add(name, [mark, rules].concat(), "foo", url, expect, bom);
    }
    add(
        "a byte order mark after the start spoils its line",
        b"User-Agent: foo\n\xef\xbb\xbfDisallow: /AnyValue\n".to_vec(),
        "foo",
        url,
        A,
        bom,
    );

    // GoogleOnly_LineTooLong's cut (8 * 2083 - 1 octets a line) with URLs short enough to be
    // canonical: the stars make the cut pattern match where the whole one would not.
    let cut = Code("Parse: lines cut at kMaxLineLen - 1 octets");
    let line_max = 2083 * 8 - 1;
    let stars = |prefix: &str| "*".repeat(line_max - prefix.len() - 1);
    let body = format!(
        "user-agent: FooBot\ndisallow: /x/{}/qux\n",
        stars("disallow: /x/")
    );
    add(
        "a long disallow line is cut",
        body.clone().into_bytes(),
        "FooBot",
        "http://foo.bar/x/a/fux",
        D,
        cut,
    );
    add(
        "a long disallow line is cut: other paths",
        body.into_bytes(),
        "FooBot",
        "http://foo.bar/fux",
        A,
        cut,
    );
    let body = format!(
        "user-agent: FooBot\ndisallow: /\nallow: /x/{}/qux\n",
        stars("allow: /x/")
    );
    add(
        "a long allow line is cut",
        body.clone().into_bytes(),
        "FooBot",
        "http://foo.bar/x/a/fux",
        A,
        cut,
    );
    add(
        "a long allow line is cut: other paths",
        body.into_bytes(),
        "FooBot",
        "http://foo.bar/",
        D,
        cut,
    );
    let whole = "*".repeat(line_max - "disallow: /x/".len() - "/qux".len());
    let body = format!("user-agent: FooBot\ndisallow: /x/{whole}/qux\n");
    add(
        "a line of the longest length is whole",
        body.into_bytes(),
        "FooBot",
        "http://foo.bar/x/a/fux",
        A,
        cut,
    );

    // The 500 KiB read (RFC 9309 2.5 asks for at least that much).
    let padded = |rule_at: usize, rule: &str| {
        let mut body = String::from("User-agent: *\n");
        while body.len() + 21 <= rule_at {
            body.push_str("Disallow: /padding\n");
        }
        body.push_str(&format!("#{}\n", "p".repeat(rule_at - body.len() - 2)));
        body.push_str(rule);
        body.into_bytes()
    };
    let max = super::MAX_ROBOTS_BYTES;
    add(
        "the first 500 KiB are read",
        padded(max - 13, "Disallow: /a\n"),
        "FooBot",
        "http://foo.bar/a",
        D,
        Rfc("2.5"),
    );
    add(
        "what is past 500 KiB is not",
        padded(max, "Disallow: /b\n"),
        "FooBot",
        "http://foo.bar/b",
        A,
        Ours("the limit is exactly 500 KiB"),
    );
    add(
        "a rule cut at 500 KiB is dropped, not shortened",
        padded(max - 11, "Disallow: /bcd\n"),
        "FooBot",
        "http://foo.bar/x",
        A,
        Ours("a cut rule would match more than it says"),
    );
    cases
}

/// A `Crawl-delay` and `Sitemap` case: what a body yields for an agent.
pub(super) struct Directives {
    /// The behaviour the row covers.
    pub name: &'static str,
    /// The robots.txt body.
    pub robots: &'static str,
    /// Our product token.
    pub agent: &'static str,
    /// The crawl delay expected.
    pub crawl_delay: Option<f64>,
    /// The sitemaps expected, in order.
    pub sitemaps: &'static [&'static str],
}

/// `Crawl-delay` and `Sitemap` extraction. The sitemap rows are Google's
/// `ID_NonStandardLineExample_Sitemap`; `Crawl-delay` is not in RFC 9309 nor Google's parser,
/// so those rows are our choices: the delay of the groups whose rules we obey.
pub(super) fn directives() -> Vec<Directives> {
    let row = |name, robots, agent, crawl_delay, sitemaps| Directives {
        name,
        robots,
        agent,
        crawl_delay,
        sitemaps,
    };
    let sitemap = &["http://foo.bar/sitemap.xml"][..];
    vec![
        row(
            "sitemap at the end",
            "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nSitemap: http://foo.bar/sitemap.xml\n",
            "foo",
            None,
            sitemap,
        ),
        row(
            "sitemap anywhere",
            "Sitemap: http://foo.bar/sitemap.xml\nUser-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n",
            "foo",
            None,
            sitemap,
        ),
        row(
            "sitemaps for every agent, in order",
            "User-agent: other\nSitemap: http://a/1.xml\nDisallow: /\nsite-map: http://a/2.xml\n",
            "siftbot",
            None,
            &["http://a/1.xml", "http://a/2.xml"],
        ),
        row(
            "an empty sitemap is none",
            "Sitemap:\n",
            "siftbot",
            None,
            &[],
        ),
        row("empty file", "", "siftbot", None, &[]),
        row(
            "crawl-delay of our group",
            "User-agent: *\nCrawl-delay: 9\nDisallow: /a\n\nUser-agent: siftbot\nCrawl-delay: 2.5\nDisallow: /b\n",
            "siftbot",
            Some(2.5),
            &[],
        ),
        row(
            "crawl-delay of * when no group names us",
            "User-agent: *\nCrawl-delay: 4\nDisallow: /a\n\nUser-agent: other\nCrawl-delay: 1\n",
            "siftbot",
            Some(4.0),
            &[],
        ),
        row(
            "a group naming us without a delay has none",
            "User-agent: *\nCrawl-delay: 4\nDisallow: /a\n\nUser-agent: siftbot\nDisallow: /x\n",
            "siftbot",
            None,
            &[],
        ),
        row(
            "crawl-delay between user-agent lines is the group's",
            "User-agent: *\nCrawl-delay: 4\n\nUser-agent: siftbot\nDisallow: /x\n",
            "siftbot",
            Some(4.0),
            &[],
        ),
        row(
            "crawl-delay anywhere in the group",
            "User-agent: other\nCrawl-delay: 3\nUser-agent: siftbot\nDisallow: /x\n",
            "siftbot",
            Some(3.0),
            &[],
        ),
        row(
            "crawl-delay after the rules",
            "User-agent: siftbot\nDisallow: /x\nCrawl-delay: 3\n",
            "siftbot",
            Some(3.0),
            &[],
        ),
        row(
            "crawl-delay outside any group",
            "Crawl-delay: 3\nUser-agent: siftbot\nDisallow: /x\n",
            "siftbot",
            None,
            &[],
        ),
        row(
            "crawldelay misspelt",
            "User-agent: siftbot\ncrawldelay: 2\n",
            "siftbot",
            Some(2.0),
            &[],
        ),
        row(
            "crawl-delay not a number",
            "User-agent: siftbot\nCrawl-delay: soon\n",
            "siftbot",
            None,
            &[],
        ),
        row(
            "crawl-delay negative",
            "User-agent: siftbot\nCrawl-delay: -1\n",
            "siftbot",
            None,
            &[],
        ),
        row(
            "crawl-delay infinite",
            "User-agent: siftbot\nCrawl-delay: 1e999\n",
            "siftbot",
            None,
            &[],
        ),
        row(
            "crawl-delay NaN",
            "User-agent: siftbot\nCrawl-delay: NaN\n",
            "siftbot",
            None,
            &[],
        ),
        row(
            "the last crawl-delay of merged groups",
            "User-agent: siftbot\nCrawl-delay: 1\nDisallow: /a\n\nUser-agent: siftbot\nCrawl-delay: 5\n",
            "siftbot",
            Some(5.0),
            &[],
        ),
    ]
}

/// Google's `ID_VerifyValidUserAgentsToObey`: (token, valid).
pub(super) const AGENT_TOKENS: &[(&str, bool)] = &[
    ("Foobot", true),
    ("Foobot-Bar", true),
    ("Foo_Bar", true),
    ("", false),
    ("ツ", false),
    ("Foobot*", false),
    (" Foobot ", false),
    ("Foobot/2.1", false),
    ("Foobot Bar", false),
];
