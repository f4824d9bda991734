//! The dependency graph of a DAG's steps.

use crate::spec::Dag;

/// The index of the step `reference` names, by id or by name.
pub(crate) fn find_step(dag: &Dag, reference: &str) -> Option<usize> {
    dag.steps
        .iter()
        .position(|s| s.id.as_deref() == Some(reference))
        .or_else(|| dag.steps.iter().position(|s| s.name == reference))
}

/// For each step, the indices of the steps it depends on (unknown names
/// left out: `validate` reports them).
pub(crate) fn dependencies(dag: &Dag) -> Vec<Vec<usize>> {
    dag.steps
        .iter()
        .map(|step| {
            let mut deps: Vec<usize> = step
                .depends
                .iter()
                .filter_map(|d| find_step(dag, d))
                .collect();
            deps.dedup();
            deps
        })
        .collect()
}

/// A dependency cycle, as the step names around it (`a -> b -> a`: a
/// depends on b, which depends on a), if the DAG has one.
pub fn cycle(dag: &Dag) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let deps = dependencies(dag);
    let mut marks = vec![Mark::New; deps.len()];
    // Iterative depth-first search: a 1,000-step chain must not overflow the stack.
    for start in 0..deps.len() {
        if marks[start] != Mark::New {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(start, 0)];
        marks[start] = Mark::Open;
        while let Some((node, next)) = path.last_mut() {
            let node = *node;
            if let Some(&dep) = deps[node].get(*next) {
                *next += 1;
                match marks[dep] {
                    Mark::New => {
                        marks[dep] = Mark::Open;
                        path.push((dep, 0));
                    }
                    Mark::Open => {
                        let from = path.iter().position(|(n, _)| *n == dep).unwrap_or(0);
                        // Read as "a depends on b, which depends on a".
                        let mut names: Vec<String> = path[from..]
                            .iter()
                            .map(|(n, _)| dag.steps[*n].name.clone())
                            .collect();
                        names.push(names[0].clone());
                        return Some(names);
                    }
                    Mark::Done => {}
                }
            } else {
                marks[node] = Mark::Done;
                path.pop();
            }
        }
    }
    None
}

/// Every step that depends, directly or not, on `start` (itself included).
pub(crate) fn downstream(dag: &Dag, start: usize) -> Vec<bool> {
    let deps = dependencies(dag);
    let mut marked = vec![false; deps.len()];
    marked[start] = true;
    // Steps may be listed before their dependencies: repeat until stable.
    let mut changed = true;
    while changed {
        changed = false;
        for (i, d) in deps.iter().enumerate() {
            if !marked[i] && d.iter().any(|&x| marked[x]) {
                marked[i] = true;
                changed = true;
            }
        }
    }
    marked
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn cycles_are_named_along_their_dependencies() {
        let workflow = parse(
            "steps:\n  - {id: a, run: 'true', depends: b}\n  - {id: b, run: 'true', depends: a}\n  - {id: c, run: 'true'}\n",
        )
        .unwrap();
        assert_eq!(cycle(workflow.main()).unwrap(), ["a", "b", "a"]);
        let workflow =
            parse("steps:\n  - {id: a, run: 'true'}\n  - {id: b, run: 'true', depends: [a]}\n")
                .unwrap();
        assert_eq!(cycle(workflow.main()), None);
        assert_eq!(downstream(workflow.main(), 0), [true, true]);
        assert_eq!(downstream(workflow.main(), 1), [false, true]);
    }
}
