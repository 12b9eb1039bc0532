package dev.inference.retry.autoconfigure;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;

/**
 * A count that many threads increment and few read, with no locked instruction on an increment: a
 * platform thread adds to a cell that it alone owns (a plain add and a release store), found by its
 * thread id with no hashing and no thread-local, and {@link #sum()} adds the cells up.
 *
 * <p>Cells are indexed by {@code id & (length - 1)}. A thread takes the cell at its index when the cell
 * has no owner or its owner has ended, under a lock, once; afterwards its increments are a load of the
 * owner, a compare and the add. When the cell belongs to a thread that is still running, the cells are
 * doubled, each owned cell moving to its owner's index in the larger array (two owners never meet
 * there, since their ids already differed in the lower bits), up to {@value #MAX_CELLS} cells; beyond
 * that, and on virtual threads (Java 21 and later, one thread per task, which would each take a cell for
 * a call or two), increments go to one shared {@link LongAdder}, as any thread-safe count would.
 * <ul>
 * <li>No count is lost. Only a cell's owner writes it. A cell changes owner only when
 * {@link Thread#isAlive()} has said that its owner ended, which happens-after everything that thread
 * did: the next owner goes on from the last value. A cell of an ended thread that a doubling drops has
 * its value moved into a total of dropped cells first.</li>
 * <li>A sum includes every increment that happens-before it (one of a thread since joined, or one
 * published through a latch, a lock or a volatile write), possibly some more. Sums are taken one at a
 * time and each of their parts only grows, so a sum is never less than an earlier one.</li>
 * <li>Memory stays bounded: at most {@value #MAX_CELLS} cells (about 150 KB with their padding), each
 * holding its last owner (an ended {@code Thread} until a new thread takes the cell or a doubling drops
 * it). Few live threads can still need the most cells: two live owners whose ids are equal modulo
 * {@value #MAX_CELLS} double the cells all the way, and churning thread ids makes that likely over a long
 * run. An increment allocates nothing.</li>
 * </ul>
 * The slow paths (taking a cell, doubling, a sum) hold a lock; the increment of a thread that owns its
 * cell never does, nor that of a thread left to the shared adder because the cells are at their most. Thread ids come from {@link Thread#getId()}, which the JDK gives out in sequence, so
 * that the threads of a pool, started together, take neighbouring cells.
 */
final class PerThreadCounter implements Tally {

    /** The cells a counter starts with. */
    static final int INITIAL_CELLS = 16;

    /** The most cells a counter holds; more threads at once count in the shared adder. */
    static final int MAX_CELLS = 1024;

    /** {@code Thread::isVirtual} where it exists (Java 21 and later), else a function that is always false. */
    private static final MethodHandle IS_VIRTUAL = isVirtualHandle();

    private final int maxCells;

    /** A power of two in length; replaced, never changed, under the lock. */
    private volatile Cell[] cells;

    private final LongAdder shared = new LongAdder();

    private final Object lock = new Object();

    /** The counts of the cells of ended threads that doublings dropped; guarded by lock. */
    private long dropped;

    /** Creates a counter at zero with {@value #INITIAL_CELLS} cells, growing to {@value #MAX_CELLS}. */
    PerThreadCounter() {
        this(INITIAL_CELLS, MAX_CELLS);
    }

    /**
     * Creates a counter at zero with a given number of cells, for tests that make threads meet.
     *
     * @param initialCells the cells to start with, a power of two
     * @param maxCells the most cells, a power of two, at least {@code initialCells}
     */
    PerThreadCounter(int initialCells, int maxCells) {
        if (Integer.bitCount(initialCells) != 1 || Integer.bitCount(maxCells) != 1 || maxCells < initialCells) {
            throw new IllegalArgumentException("Cells must be powers of two with initialCells <= maxCells, but were "
                    + initialCells + " and " + maxCells);
        }
        this.maxCells = maxCells;
        this.cells = newCells(initialCells);
    }

    /** Counts one more: in the calling thread's own cell, or else in the shared adder. */
    @Override
    public void increment() {
        Thread thread = Thread.currentThread();
        Cell[] cells = this.cells;
        Cell cell = cells[index(thread, cells.length)];
        // Only this thread can have made itself the owner, and nobody else changes that while it runs.
        if (cell.owner == thread) {
            cell.increment();
        }
        else {
            incrementWithoutCell(thread);
        }
    }

    /**
     * Returns the count: every increment that happens-before this call, and possibly some that are
     * concurrent with it; never less than an earlier sum.
     *
     * @return the count, from 0
     */
    long sum() {
        synchronized (this.lock) {
            long sum = this.dropped + this.shared.sum();
            for (Cell cell : this.cells) {
                sum += cell.value();
            }
            return sum;
        }
    }

    /**
     * Returns how many cells there are, owned or not.
     *
     * @return the number of cells, a power of two
     */
    int cells() {
        return this.cells.length;
    }

    /**
     * Returns how many cells belong to a thread that is still running.
     *
     * @return the number of cells owned by live threads
     */
    int cellsOfLiveThreads() {
        synchronized (this.lock) {
            int owned = 0;
            for (Cell cell : this.cells) {
                Thread owner = cell.owner;
                if (owner != null && owner.isAlive()) {
                    owned++;
                }
            }
            return owned;
        }
    }

    private void incrementWithoutCell(Thread thread) {
        Cell cell = isVirtual(thread) ? null : take(thread);
        if (cell != null) {
            cell.increment();
        }
        else {
            this.shared.increment();
        }
    }

    /** Returns the cell that the thread now owns, or {@code null} when it must count in the shared adder. */
    private @Nullable Cell take(Thread thread) {
        Cell[] all = this.cells;
        if (all.length == this.maxCells) {
            // Read without the lock, as a hint: a thread that meets a live one at the most cells, at every
            // increment, goes to the shared adder without queueing for the lock.
            Thread owner = all[index(thread, all.length)].owner;
            if (owner != null && owner != thread && owner.isAlive()) {
                return null;
            }
        }
        synchronized (this.lock) {
            for (;;) {
                Cell[] cells = this.cells;
                Cell cell = cells[index(thread, cells.length)];
                Thread owner = cell.owner;
                // An ended thread's last add happens-before isAlive() returning false: go on from its value.
                if (owner == thread || owner == null || !owner.isAlive()) {
                    cell.owner = thread;
                    return cell;
                }
                if (cells.length == this.maxCells) {
                    return null;
                }
                this.cells = doubled(cells);
            }
        }
    }

    /** Moves each cell of a live thread to its index among twice the cells; the caller holds the lock. */
    private Cell[] doubled(Cell[] cells) {
        Cell[] doubled = new Cell[cells.length * 2];
        long ended = 0;
        for (Cell cell : cells) {
            Thread owner = cell.owner;
            if (owner != null && owner.isAlive()) {
                doubled[index(owner, doubled.length)] = cell;
            }
            else {
                // Its owner, if any, has ended: nobody writes this cell again.
                ended += cell.value();
            }
        }
        for (int i = 0; i < doubled.length; i++) {
            if (doubled[i] == null) {
                doubled[i] = new Cell();
            }
        }
        // Added only once nothing can fail before the caller publishes the doubled cells: an Error above
        // (no memory for a cell, say) leaves the dropped cells in the array and out of this total, not in both.
        this.dropped += ended;
        return doubled;
    }

    private static Cell[] newCells(int length) {
        Cell[] cells = new Cell[length];
        for (int i = 0; i < length; i++) {
            cells[i] = new Cell();
        }
        return cells;
    }

    @SuppressWarnings("deprecation") // Thread.threadId() is Java 19 and later; getId() returns the same.
    private static int index(Thread thread, int length) {
        return (int) thread.getId() & (length - 1);
    }

    private static boolean isVirtual(Thread thread) {
        try {
            return (boolean) IS_VIRTUAL.invokeExact(thread);
        }
        catch (RuntimeException | Error failure) {
            throw failure;
        }
        catch (Throwable impossible) {
            // Thread::isVirtual declares no checked exception.
            throw new IllegalStateException(impossible);
        }
    }

    private static MethodHandle isVirtualHandle() {
        try {
            return MethodHandles.publicLookup()
                .findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        }
        catch (NoSuchMethodException beforeJava21) {
            return MethodHandles.dropArguments(MethodHandles.constant(boolean.class, false), 0, Thread.class);
        }
        catch (IllegalAccessException impossible) {
            // A public method of a public class, looked up publicly.
            throw new IllegalStateException(impossible);
        }
    }

    /**
     * Cache-line padding before a cell's fields: the JVM lays a superclass's fields out first, so that
     * two cells that threads on different cores write never share a cache line.
     */
    @SuppressWarnings("unused")
    private static class LeadingPadding {

        long p01;
        long p02;
        long p03;
        long p04;
        long p05;
        long p06;
        long p07;
    }

    /**
     * A cell's owner and count, between paddings. The count's accessors are declared here, where the
     * field is, so that each access matches its handle's type exactly and compiles to a plain move.
     */
    private static class CellFields extends LeadingPadding {

        private static final VarHandle VALUE = valueHandle();

        /** Changed only under the lock, only from {@code null} or an ended thread. */
        @Nullable Thread owner;

        /** Written only by the owner, with release stores; read by others with acquire loads. */
        private long value;

        final void increment() {
            // Only the owner writes, so a plain read sees its own last write, or the ended owner's before it.
            VALUE.setRelease(this, this.value + 1);
        }

        final long value() {
            return (long) VALUE.getAcquire(this);
        }

        private static VarHandle valueHandle() {
            try {
                return MethodHandles.lookup().findVarHandle(CellFields.class, "value", long.class);
            }
            catch (ReflectiveOperationException impossible) {
                throw new ExceptionInInitializerError(impossible);
            }
        }
    }

    /** The count of the thread that owns it: written by that thread only, read by any. */
    @SuppressWarnings("unused")
    private static final class Cell extends CellFields {

        long p11;
        long p12;
        long p13;
        long p14;
        long p15;
        long p16;
        long p17;
    }
}
