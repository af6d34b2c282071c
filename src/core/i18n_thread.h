// A thread whose texts are stored facts: the probes run on their own threads
// and store English (a snapshot is a file read by programs, and the report
// translates what it prints: report/probe_detail). On such a thread every
// catalog lookup answers English, whatever the process's language; the other
// threads are not affected.
#pragma once

namespace tfrig::core::i18n {

void set_thread_english(bool english);

}  // namespace tfrig::core::i18n
