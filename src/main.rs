fn main() {
    std::process::exit(tmux_agent_wizard::cli::run());
}
