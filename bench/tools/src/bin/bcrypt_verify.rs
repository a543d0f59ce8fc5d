//! Seconds one bcrypt verify takes at `BCRYPT_COST` (default 12): the sign-in ceiling of
//! `bench/run.sh` is cores ÷ this. Prints the median of seven.

fn main() {
    let cost = std::env::var("BCRYPT_COST")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(12);
    let Ok(hash) = bcrypt::hash("Parceiro#2026", cost) else {
        eprintln!("bcrypt falhou");
        std::process::exit(1);
    };
    let mut times: Vec<f64> = (0..7)
        .map(|_| {
            let started = std::time::Instant::now();
            let _ = bcrypt::verify("Parceiro#2026", &hash);
            started.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    println!("{:.4}", times[3]);
}
