/**
 * The clock and random reads of a durable run (docs/durable.md), as a runtime takes them: the
 * host gives the run a seed for its random generator and the clock reads its journal recorded;
 * the guest serves those reads in order, then reads the live clock, and reports every read back
 * (`onClock`, batched, before each tool call) so the next pause stores them. Absent: nothing is
 * recorded and the guest reads its clock and random source as always.
 */

/** What a runtime needs to make a run's clock and random reads replayable. */
export interface DurableReads {
  /** Four 32-bit words seeding the guest's random generator (random module, Math.random). */
  seed: number[];
  /** Clock reads (milliseconds since the epoch) the journal recorded, served first, in order. */
  clock: number[];
  /** Told the reads the guest made since its last report, in order (a bad report is dropped by the host's recorder). */
  onClock(reads: unknown): void;
}
