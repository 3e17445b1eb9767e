fn main() {
    std::process::exit(tmux_agent_wizard::run());
}
