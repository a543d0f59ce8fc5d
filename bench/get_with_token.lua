-- A GET of the path given to wrk, with the bearer token.
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
