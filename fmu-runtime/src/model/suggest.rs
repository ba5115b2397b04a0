//! "Did you mean ...?" suggestions for misspelt keywords, field names, object names and units.

/// Levenshtein distance between two strings, by characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The candidate closest to `word`: within edit distance 2 (1 for words of up to three
/// characters), or else the only candidate that starts with `word`.
pub fn closest<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    let candidates: Vec<&str> = candidates.into_iter().filter(|c| *c != word).collect();
    let limit = if word.chars().count() <= 3 { 1 } else { 2 };
    let best = candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d);
    if let Some((_, c)) = best {
        return Some(c.to_string());
    }
    if word.is_empty() {
        return None;
    }
    let prefixed: Vec<&&str> = candidates.iter().filter(|c| c.starts_with(word)).collect();
    if prefixed.len() == 1 {
        return Some(prefixed[0].to_string());
    }
    None
}

/// `Some("did you mean `x`?")` when a close candidate exists.
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    closest(word, candidates).map(|c| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances_and_suggestions() {
        assert_eq!(edit_distance("revolut", "revolute"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(
            closest("revlute", ["revolute", "prismatic"]).as_deref(),
            Some("revolute")
        );
        assert_eq!(
            closest("pris", ["revolute", "prismatic"]).as_deref(),
            Some("prismatic")
        );
        assert_eq!(closest("xyz", ["revolute", "prismatic"]), None);
    }
}
