-- A GET of the path given to wrk, with the back office's bearer token (it sees every proposal).
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_READ_TOKEN")
