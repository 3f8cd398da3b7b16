//! `WARC-Date`: a UTC time in the W3C form of ISO 8601 (`2024-05-06T12:53:20Z`, WARC 1.1
//! allows a fraction of a second). Written with milliseconds, as the store keeps times;
//! read with or without a fraction. Civil dates from day counts by Howard Hinnant's
//! algorithms (proleptic Gregorian calendar).

/// Milliseconds since the Unix epoch as `YYYY-MM-DDThh:mm:ss.mmmZ`.
pub fn format_ms(ms: u64) -> String {
    let secs = ms / 1000;
    let days = i64::try_from(secs / 86_400).unwrap_or(i64::MAX / 2);
    let (year, month, day) = civil_from_days(days);
    let of_day = secs % 86_400;
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        of_day / 3600,
        of_day / 60 % 60,
        of_day % 60,
        ms % 1000
    )
}

/// A `WARC-Date` as milliseconds since the Unix epoch; `None` for anything else (or a time
/// before 1970).
pub fn parse_ms(text: &str) -> Option<u64> {
    let text = text.trim().strip_suffix('Z')?;
    let (date, time) = text.split_once('T')?;
    let mut date = date.split('-');
    let year: i64 = number(date.next()?, 4)?;
    let month: i64 = number(date.next()?, 2)?;
    let day: i64 = number(date.next()?, 2)?;
    if date.next().is_some() || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let (clock, fraction) = time.split_once('.').unwrap_or((time, ""));
    let mut clock = clock.split(':');
    let hour: i64 = number(clock.next()?, 2)?;
    let minute: i64 = number(clock.next()?, 2)?;
    let second: i64 = number(clock.next()?, 2)?;
    if clock.next().is_some() || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    if !fraction.bytes().all(|b| b.is_ascii_digit()) || fraction.len() > 9 {
        return None;
    }
    let millis: i64 = format!("{fraction:0<3}")[..3].parse().ok()?;
    let secs = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second;
    u64::try_from(secs * 1000 + millis).ok()
}

/// A field of exactly `digits` ASCII digits.
fn number(text: &str, digits: usize) -> Option<i64> {
    (text.len() == digits && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

/// Days since 1970-01-01 of a civil date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The civil date (year, month, day) of a count of days since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let days = days + 719_468;
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_as_python_writes_them_and_read_back() {
        // Expected strings from Python's datetime.fromtimestamp(ms / 1000, timezone.utc).
        for (ms, text) in [
            (0, "1970-01-01T00:00:00.000Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_715_000_000_123, "2024-05-06T12:53:20.123Z"),
            (4_102_444_799_999, "2099-12-31T23:59:59.999Z"),
        ] {
            assert_eq!(format_ms(ms), text);
            assert_eq!(parse_ms(text), Some(ms), "{text}");
        }
    }

    #[test]
    fn dates_without_a_fraction_or_with_microseconds_are_read() {
        assert_eq!(parse_ms("2024-05-06T12:53:20Z"), Some(1_715_000_000_000));
        assert_eq!(
            parse_ms("2024-05-06T12:53:20.123456Z"),
            Some(1_715_000_000_123)
        );
    }

    #[test]
    fn anything_else_is_no_date() {
        for text in [
            "",
            "2024-05-06",
            "2024-05-06T12:53:20",
            "2024-13-06T12:53:20Z",
            "24-05-06T12:53:20Z",
            "2024-05-06T25:53:20Z",
            "2024-05-06T12:53:20.x1Z",
            "1969-12-31T23:59:59Z",
            "２０２４-05-06T12:53:20Z",
        ] {
            assert_eq!(parse_ms(text), None, "{text:?}");
        }
    }
}
