//! Prints route 5's own writes as a pgbench script: the service's one create statement
//! (`adapters_postgres::proposals::CREATE_PROPOSAL`) with the benchmark body's values, so that
//! `bench/run.sh` measures what the route writes with nothing of the service in the way.

fn main() {
    match adapters_postgres::proposals::create_proposal_pgbench_script() {
        Some(script) => print!("{script}"),
        None => {
            eprintln!("o comando de criação e os valores do script não combinam");
            std::process::exit(1);
        }
    }
}
