/**
 * The stateful resources (table, attachments bucket, sync queue and its DLQ, events topic, cursor secret)
 * and the one place that hands a function access to them: `grant` sets a function's permission and the
 * environment variable naming the resource together, so a function never knows a resource it may not use.
 */
import type { FunctionAccess } from '#platform/function-access.js';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, type IGrantable, type IRole } from 'aws-cdk-lib/aws-iam';
import { Alias, Key } from 'aws-cdk-lib/aws-kms';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership } from 'aws-cdk-lib/aws-s3';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { OUTBOX_PREFIX, WALK_PREFIX } from '#platform/keys.js';
import { resources } from '#platform/resources.js';
import { tableDefinition } from '#platform/table.js';
import type { StageConfig } from './stage-config.js';

/**
 * What `grant` hands access to: a Lambda function, or the container ingest's task (issue 15), whose role and
 * environment are set the same way.
 */
export interface GrantTarget extends IGrantable {
  readonly role?: IRole;
  addEnvironment(name: string, value: string): void;
  addToRolePolicy(statement: PolicyStatement): void;
  /** A secret as an environment variable injected at start (ECS); without it, a deploy-time dynamic reference (Lambda). */
  addSecretEnvironment?(name: string, secret: ISecret): void;
}

/** Days after which S3 itself deletes attachments, should the retention job ever fall behind. */
export const ATTACHMENT_BACKSTOP_DAYS = 180;

export class ServiceData extends Construct {
  readonly table: Table;
  readonly attachments: Bucket;
  readonly accessLogs: Bucket;
  readonly syncQueue: Queue;
  readonly syncDeadLetterQueue: Queue;
  readonly eventsTopic: Topic;
  /** The event relay's on-failure destination (P115). */
  readonly eventRelayDeadLetterQueue: Queue;
  readonly cursorSecret: Secret;
  readonly jobImportQueue: Queue;
  readonly jobImportDeadLetterQueue: Queue;
  /** Partner webhooks (D19): events from the topic, and one delivery message per event and endpoint. */
  readonly webhookQueue: Queue;
  readonly webhookDeadLetterQueue: Queue;
  /** Wraps the data keys of the ATS credentials at rest (D18). */
  readonly credentialsKey: Key;

  constructor(
    scope: Construct,
    id: string,
    private readonly stage: StageConfig,
  ) {
    super(scope, id);
    const name = (suffix: string) => `${stage.prefix}-${suffix}`;

    this.table = new Table(this, 'Table', {
      tableName: name('table'),
      partitionKey: { name: tableDefinition.partitionKey, type: AttributeType.STRING },
      sortKey: { name: tableDefinition.sortKey, type: AttributeType.STRING },
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      // The AWS managed key (not the AWS owned default) makes every use of the key visible in CloudTrail.
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: tableDefinition.ttlAttribute,
      // The event relay reads the outbox items' INSERTs and the writes of items carrying an event from the stream
      // (P115, P240: old and new images, to tell a new event from one already relayed); its filters drop the rest.
      stream: StreamViewType[tableDefinition.streamViewType],
      deletionProtection: stage.retainData,
      removalPolicy: stage.removalPolicy,
    });
    for (const index of tableDefinition.globalSecondaryIndexes) {
      this.table.addGlobalSecondaryIndex({
        indexName: index.name,
        partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
        sortKey: { name: index.sortKey, type: AttributeType.STRING },
        projectionType: ProjectionType[index.projection],
        ...('include' in index && index.include ? { nonKeyAttributes: [...index.include] } : {}),
      });
    }

    const bucketDefaults = {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      encryption: BucketEncryption.S3_MANAGED,
      enforceSSL: true,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      removalPolicy: stage.removalPolicy,
      // Dev stacks are torn down often; CloudFormation cannot delete a bucket that still holds objects.
      autoDeleteObjects: !stage.retainData,
    };
    // Server access logs need SSE-S3: log delivery cannot write to SSE-KMS buckets.
    this.accessLogs = new Bucket(this, 'AccessLogs', {
      ...bucketDefaults,
      lifecycleRules: [{ expiration: Duration.days(stage.retainData ? 365 : 30) }],
    });
    this.attachments = new Bucket(this, 'Attachments', {
      ...bucketDefaults,
      serverAccessLogsBucket: this.accessLogs,
      serverAccessLogsPrefix: `${resources.attachmentsBucket.name}/`,
      lifecycleRules: [
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        // Backstop for retention (D10): the scheduled job deletes attachments at 180 days, and so does this rule
        // (S3 expires an object at the first midnight after 180 days: never before its application is anonymized).
        { id: 'retention-backstop', prefix: 'companies/', expiration: Duration.days(ATTACHMENT_BACKSTOP_DAYS) },
      ],
    });

    this.syncDeadLetterQueue = new Queue(this, 'SyncDeadLetterQueue', {
      queueName: name(resources.syncDeadLetterQueue.name),
      retentionPeriod: Duration.seconds(resources.syncDeadLetterQueue.retentionSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: stage.removalPolicy,
    });
    this.syncQueue = new Queue(this, 'SyncQueue', {
      queueName: name(resources.syncQueue.name),
      visibilityTimeout: Duration.seconds(resources.syncQueue.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.syncDeadLetterQueue, maxReceiveCount: resources.syncQueue.maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: stage.removalPolicy,
    });

    this.jobImportDeadLetterQueue = new Queue(this, 'JobImportDeadLetterQueue', {
      queueName: name(resources.jobImportDeadLetterQueue.name),
      retentionPeriod: Duration.seconds(resources.jobImportDeadLetterQueue.retentionSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: stage.removalPolicy,
    });
    this.jobImportQueue = new Queue(this, 'JobImportQueue', {
      queueName: name(resources.jobImportQueue.name),
      visibilityTimeout: Duration.seconds(resources.jobImportQueue.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.jobImportDeadLetterQueue, maxReceiveCount: resources.jobImportQueue.maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: stage.removalPolicy,
    });

    // D18: a customer managed key of the stack wraps the per-secret data keys of ATS credentials; every
    // use is in CloudTrail, and the encryption context names the company and ATS.
    this.credentialsKey = new Key(this, 'CredentialsKey', {
      alias: name('ats-credentials'),
      description: 'Envelope encryption of ATS credentials at rest (D18)',
      enableKeyRotation: true,
      removalPolicy: stage.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(stage.retainData ? 30 : 7),
    });

    this.eventRelayDeadLetterQueue = new Queue(this, 'EventRelayDeadLetterQueue', {
      queueName: name(resources.eventRelayDeadLetterQueue.name),
      retentionPeriod: Duration.seconds(resources.eventRelayDeadLetterQueue.retentionSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: stage.removalPolicy,
    });
    Validations.of(this.eventRelayDeadLetterQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        "The event relay's on-failure destination (a DLQ of the table stream's event source mapping), not a queue that anything consumes.",
    });

    this.eventsTopic = new Topic(this, 'EventsTopic', {
      topicName: name(resources.eventsTopic.name),
      masterKey: Alias.fromAliasName(this, 'SnsManagedKey', 'alias/aws/sns'),
      enforceSSL: true,
    });

    this.webhookDeadLetterQueue = new Queue(this, 'WebhookDeadLetterQueue', {
      queueName: name(resources.webhookDeadLetterQueue.name),
      retentionPeriod: Duration.seconds(resources.webhookDeadLetterQueue.retentionSeconds),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: stage.removalPolicy,
    });
    this.webhookQueue = new Queue(this, 'WebhookQueue', {
      queueName: name(resources.webhookQueue.name),
      visibilityTimeout: Duration.seconds(resources.webhookQueue.visibilityTimeoutSeconds),
      // Retries wait up to 12 hours each; 14 days keeps a message through its whole schedule.
      retentionPeriod: Duration.days(14),
      deadLetterQueue: { queue: this.webhookDeadLetterQueue, maxReceiveCount: resources.webhookQueue.maxReceiveCount },
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: stage.removalPolicy,
    });
    // Raw delivery: the queue receives the event envelope itself, as the local runtime's subscription does.
    this.eventsTopic.addSubscription(new SqsSubscription(this.webhookQueue, { rawMessageDelivery: true }));

    // Generated once at creation and resolved into the functions' environment at deploy time (a dynamic
    // reference), so no function reads Secrets Manager at run time and the value never appears in the template.
    this.cursorSecret = new Secret(this, 'CursorSecret', {
      secretName: name('cursor-secret'),
      description:
        'Keys the encryption (AES-256-GCM) of the opaque page cursors of list routes (D4). Changing it invalidates outstanding next links.',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: stage.removalPolicy,
    });
  }

  grant(fn: GrantTarget, access: FunctionAccess): void {
    const role = fn.role!;
    if (access.table) {
      fn.addEnvironment('TABLE_NAME', this.table.tableName);
      if (access.table === 'outbox') {
        // The relay deletes the outbox items it has published, and puts one only to park an event it could not
        // publish (P240): both on outbox partitions only. It reads nothing but its stream.
        fn.addToRolePolicy(
          new PolicyStatement({
            actions: ['dynamodb:DeleteItem', 'dynamodb:PutItem'],
            resources: [this.table.tableArn],
            conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${OUTBOX_PREFIX}*`] } },
          }),
        );
      } else if (access.table === 'authorize') {
        // The key lookup is by primary key on the base table: no index, no scan, no other write.
        fn.addToRolePolicy(new PolicyStatement({ actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'], resources: [this.table.tableArn] }));
      } else {
        if (access.table === 'write') this.table.grantReadWriteData(fn);
        else this.table.grantReadData(fn);
        // A list stores the ids of a walk by `next` (P260): on walk partitions only, which nothing else reads.
        if (access.table === 'list')
          fn.addToRolePolicy(
            new PolicyStatement({
              actions: ['dynamodb:BatchWriteItem'],
              resources: [this.table.tableArn],
              conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${WALK_PREFIX}*`] } },
            }),
          );
        Validations.of(role).acknowledge({
          id: `AwsSolutions-IAM5[Resource::<${this.logicalId(this.table)}.Arn>/index/*]`,
          reason: "Queries on the service table's own GSIs (shared/table.ts); the wildcard stays within this one table.",
        });
      }
    }
    if (access.attachments) {
      fn.addEnvironment('BUCKET_NAME', this.attachments.bucketName);
      // Object actions only, named one by one (the grantRead* helpers add List*/GetBucket*/GetObject* wildcards).
      // `write` also deletes: a create removes its uploads again when the record cannot be written.
      const actions = {
        read: ['s3:GetObject'],
        write: ['s3:GetObject', 's3:PutObject', 's3:AbortMultipartUpload', 's3:DeleteObject'],
        delete: ['s3:GetObject', 's3:DeleteObject'],
      }[access.attachments];
      fn.addToRolePolicy(new PolicyStatement({ actions, resources: [this.attachments.arnForObjects('*')] }));
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::<${this.logicalId(this.attachments)}.Arn>/*]`,
        reason: 'Attachment objects are keyed per company and application at run time; access stays within the attachments bucket.',
      });
    }
    if (access.syncQueue) {
      fn.addEnvironment('SYNC_QUEUE_URL', this.syncQueue.queueUrl);
      this.syncQueue.grantSendMessages(fn);
    }
    if (access.jobImportQueue) {
      fn.addEnvironment('JOB_IMPORT_QUEUE_URL', this.jobImportQueue.queueUrl);
      this.jobImportQueue.grantSendMessages(fn);
    }
    if (access.webhookQueue) {
      fn.addEnvironment('WEBHOOK_QUEUE_URL', this.webhookQueue.queueUrl);
      this.webhookQueue.grantSendMessages(fn);
    }
    if (access.ats) {
      for (const [variable, value] of Object.entries(this.stage.atsUrls)) fn.addEnvironment(variable, value);
    }
    if (access.credentials) {
      fn.addEnvironment('CREDENTIALS_KMS_KEY_ID', this.credentialsKey.keyArn);
      // Sealing needs a fresh data key (GenerateDataKey), opening needs Decrypt: nothing else of the key.
      if (access.credentials === 'encrypt') this.credentialsKey.grant(fn, 'kms:GenerateDataKey', 'kms:Decrypt');
      else this.credentialsKey.grantDecrypt(fn);
    }
    if (access.events) {
      fn.addEnvironment('EVENTS_TOPIC_ARN', this.eventsTopic.topicArn);
      // Not grantPublish: it adds KMS permissions on key/* that the AWS managed SNS key does not need (its key
      // policy already lets the account's principals use it through SNS).
      fn.addToRolePolicy(new PolicyStatement({ actions: ['sns:Publish'], resources: [this.eventsTopic.topicArn] }));
    }
    if (access.email) {
      fn.addEnvironment('EMAIL_FROM', this.stage.emailFrom);
      // SES authorizes sending per identity (the sender and, in the sandbox, each recipient).
      fn.addToRolePolicy(
        new PolicyStatement({
          actions: ['ses:SendEmail', 'ses:SendRawEmail'],
          resources: [Stack.of(this).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' })],
        }),
      );
      Validations.of(fn.role!).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:ses:<AWS::Region>:<AWS::AccountId>:identity/*]',
        reason: 'The e-mail fallback sends to whatever address a job or company names; SES checks the sender identity itself.',
      });
    }
    if (access.cursorSecret) {
      if (fn.addSecretEnvironment) fn.addSecretEnvironment('CURSOR_SECRET', this.cursorSecret);
      // A dynamic reference: CloudFormation resolves it at deploy time, so the function needs no Secrets Manager access.
      else fn.addEnvironment('CURSOR_SECRET', this.cursorSecret.secretValue.unsafeUnwrap());
    }
  }

  private logicalId(construct: Construct): string {
    return Stack.of(this).getLogicalId(construct.node.defaultChild as never);
  }
}
