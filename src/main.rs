/// The static Linux release's allocator (Cargo.toml says why).
#[cfg(all(target_env = "musl", target_arch = "x86_64"))]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

fn main() {
    std::process::exit(tmux_agent_wizard::run());
}
