/** AIPack's four Lua stages of an agent run (not the sub-agent stages pre, pre_task, post_task, post). */
export type LifecycleStage = 'BeforeAll' | 'Data' | 'Output' | 'AfterAll';
