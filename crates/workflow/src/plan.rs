//! The dependency graph of a DAG's steps, and the graph of `dag.run`
//! calls between a file's DAGs.

use crate::spec::{Dag, StepAction, Workflow};

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
    let path = first_cycle(&dependencies(dag))?;
    Some(
        path.into_iter()
            .map(|n| dag.steps[n].name.clone())
            .collect(),
    )
}

/// A cycle of `dag.run` calls between the DAGs of a file, as the DAG
/// names around it (`a -> b -> a`: a runs b, which runs a), if there is
/// one. Only `dag.run` counts: a tool is run when a model asks, so a DAG
/// that offers itself as a tool may recurse, and the depth limit of a
/// run (`run.rs`) is what ends it.
pub(crate) fn dag_run_cycle(workflow: &Workflow) -> Option<Vec<String>> {
    let calls: Vec<Vec<usize>> = workflow
        .dags
        .iter()
        .map(|dag| {
            dag.steps
                .iter()
                .filter_map(|step| match &step.action {
                    StepAction::DagRun { dag: target, .. } => workflow
                        .dags
                        .iter()
                        .position(|d| d.name.as_deref() == Some(target.as_str())),
                    _ => None,
                })
                .collect()
        })
        .collect();
    let path = first_cycle(&calls)?;
    Some(
        path.into_iter()
            .map(|n| workflow.dags[n].name.clone().unwrap_or_default())
            .collect(),
    )
}

/// The first cycle of a graph given as each node's successors, as the
/// nodes along it with the first repeated at the end.
fn first_cycle(edges: &[Vec<usize>]) -> Option<Vec<usize>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut marks = vec![Mark::New; edges.len()];
    // Iterative depth-first search: a 1,000-step chain must not overflow the stack.
    for start in 0..edges.len() {
        if marks[start] != Mark::New {
            continue;
        }
        let mut path: Vec<(usize, usize)> = vec![(start, 0)];
        marks[start] = Mark::Open;
        while let Some((node, next)) = path.last_mut() {
            let node = *node;
            if let Some(&to) = edges[node].get(*next) {
                *next += 1;
                match marks[to] {
                    Mark::New => {
                        marks[to] = Mark::Open;
                        path.push((to, 0));
                    }
                    Mark::Open => {
                        let from = path.iter().position(|(n, _)| *n == to).unwrap_or(0);
                        let mut nodes: Vec<usize> = path[from..].iter().map(|(n, _)| *n).collect();
                        nodes.push(to);
                        return Some(nodes);
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
